// Body validation for the sandbox upstream. Every problem becomes its own
// error object so clients can map errors back to individual input fields.

export interface ApiError {
  code: string;
  message: string;
  field?: string;
}

/** Returns an error message, or null when the value is acceptable. */
type Check = (field: string, value: unknown) => string | null;

export type Schema = Record<string, Check>;

// Lengths count code points, not UTF-16 units, so an emoji counts as one.
const length = (s: string): number => Array.from(s).length;

export const text =
  (min: number, max: number): Check =>
  (field, value) => {
    if (typeof value !== 'string') return `${field} must be a string`;
    const n = length(value);
    if (n < min || n > max) {
      return min === 0 ? `${field} must be at most ${max} characters long` : `${field} must be ${min}-${max} characters long`;
    }
    return null;
  };

export const anyText: Check = (field, value) => (typeof value === 'string' ? null : `${field} must be a string`);

const TIMECODE = /^\d{2}:[0-5]\d:[0-5]\d$/;

export const timecode: Check = (field, value) =>
  typeof value === 'string' && TIMECODE.test(value) ? null : `${field} must be a time-code formatted as HH:MM:SS`;

// JSON.parse turns 1e999 into Infinity, which is not a usable position.
export const number: Check = (field, value) => (typeof value === 'number' && Number.isFinite(value) ? null : `${field} must be a number`);

export const oneOf =
  (...allowed: string[]): Check =>
  (field, value) =>
    typeof value === 'string' && allowed.includes(value) ? null : `${field} must be one of: ${allowed.join(', ')}`;

const invalid = (field: string, message: string): ApiError => ({
  code: 'invalid_field',
  field,
  message,
});

/**
 * Errors come in a stable order: body fields in body order, then (with
 * requireAll, used by create endpoints) missing fields in schema order.
 */
export function validate(body: Record<string, unknown>, schema: Schema, requireAll = false): ApiError[] {
  const errors: ApiError[] = [];
  for (const [field, value] of Object.entries(body)) {
    const check = Object.hasOwn(schema, field) ? schema[field] : undefined;
    const message = check ? check(field, value) : `${field} is not an accepted field`;
    if (message) errors.push(invalid(field, message));
  }
  if (requireAll) {
    for (const field of Object.keys(schema)) {
      if (!Object.hasOwn(body, field)) errors.push(invalid(field, `${field} is required`));
    }
  }
  return errors;
}
