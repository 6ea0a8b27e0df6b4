// Body validation for the sandbox upstream. Every problem becomes its own
// error object so clients can map errors back to individual input fields.

import { z } from 'zod';

export interface ApiError {
  code: string;
  message: string;
  field?: string;
}

/**
 * The body an endpoint accepts: `z.strictObject` of one rule per field, `.partial()` for an update.
 * A rule reports at most one issue, whose message completes "<field> ...".
 */
export type Body = z.ZodObject;

// Lengths count code points, not UTF-16 units, so an emoji counts as one.
const length = (s: string): number => Array.from(s).length;

export const text = (min: number, max: number) =>
  z.string('must be a string').refine(
    (value) => {
      const n = length(value);
      return n >= min && n <= max;
    },
    min === 0 ? `must be at most ${max} characters long` : `must be ${min}-${max} characters long`,
  );

export const anyText = z.string('must be a string');

const TIMECODE = 'must be a time-code formatted as HH:MM:SS';

export const timecode = z.string(TIMECODE).regex(/^\d{2}:[0-5]\d:[0-5]\d$/, TIMECODE);

// JSON.parse turns 1e999 into Infinity, which is not a usable position; zod's number refuses it.
export const number = z.number('must be a number');

export const oneOf = (allowed: readonly [string, ...string[]]) => z.enum(allowed, `must be one of: ${allowed.join(', ')}`);

/**
 * Errors come in a stable order: body fields in body order, then (when the
 * body schema is not partial, as for create endpoints) missing fields in
 * schema order.
 */
export function validate(fields: Record<string, unknown>, body: Body): ApiError[] {
  const result = body.safeParse(fields);
  if (result.success) return [];
  const problems = result.error.issues.flatMap((issue): Array<[field: string, message: string]> => {
    if (issue.code === 'unrecognized_keys') return issue.keys.map((field) => [field, 'is not an accepted field']);
    const field = String(issue.path[0]);
    return [[field, Object.hasOwn(fields, field) ? issue.message : 'is required']];
  });
  const order = [...Object.keys(fields), ...Object.keys(body.shape)];
  problems.sort(([a], [b]) => order.indexOf(a) - order.indexOf(b));
  return problems.map(([field, message]) => ({ code: 'invalid_field', field, message: `${field} ${message}` }));
}
