import { X509Certificate } from 'node:crypto';
import { z } from 'zod';
import { httpUrlOf } from '../config/parsers.js';
import type { InputIssue } from '../errors.js';
import { isPathSegment, MAX_ID_LENGTH } from '../upstream/route.js';

type Issue = { readonly message: string; readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined };

/** Standard-schema issues as the API reports them: `{ path: "input.name", message }`. */
export function issuesOf(issues: readonly Issue[]): InputIssue[] {
  return issues.map((issue) => ({
    path: (issue.path ?? []).map((segment) => String(typeof segment === 'object' ? segment.key : segment)).join('.'),
    message: issue.message,
  }));
}

const isHttpUrl = (value: string): boolean => httpUrlOf(value) !== undefined;

/** A certificate is a few KiB; this leaves room for long chains of extensions, not for padding. */
const MAX_CERTIFICATE_LENGTH = 16 * 1024;

/** Exactly one PEM CERTIFICATE block, with nothing around it but white space. */
const ONE_PEM_CERTIFICATE = /^\s*-----BEGIN CERTIFICATE-----\r?\n[A-Za-z0-9+/=\r\n]+-----END CERTIFICATE-----\s*$/;

function isPemCertificate(value: string): boolean {
  if (value.length > MAX_CERTIFICATE_LENGTH || !ONE_PEM_CERTIFICATE.test(value)) return false;
  try {
    new X509Certificate(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * Lengths count characters as people do, one per code point (an emoji is one, not two UTF-16
 * units), as the upstream does: a name the upstream would take is never refused here.
 */
const characters = (value: string) => {
  let count = 0;
  for (const _ of value) count++;
  return count;
};

const characterCount = (min: number, max: number, message: string) =>
  z.string().refine((value) => {
    const count = characters(value);
    return count >= min && count <= max;
  }, message);

const length = (min: number, max: number) => characterCount(min, max, `must be ${min} to ${max} characters long`);
const atMost = (max: number) => characterCount(0, max, `must be at most ${max} characters long`);

/** Field rules mirroring the contract (section 2 and 8), checked before any upstream call. */
export const rules = {
  id: z
    .string()
    .refine(
      isPathSegment,
      `must be a non-empty id of at most ${MAX_ID_LENGTH} characters, without "/", "?", "#", control characters or unpaired surrogates, and not "." or ".."`,
    ),
  name: length(1, 40),
  categoryValue: length(1, 40),
  hotspotName: atMost(100),
  timeCode: z.string().regex(/^\d{2}:[0-5]\d:[0-5]\d$/, 'must be a time-code HH:MM:SS with minutes and seconds from 00 to 59'),
  coordinate: z.number().finite('must be a finite number'),
  hotspotLink: atMost(100).refine(isHttpUrl, 'must be an http(s) URL'),
  httpUrl: z.string().refine(isHttpUrl, 'must be an http(s) URL'),
  certificate: z
    .string()
    .refine(isPemCertificate, `must be exactly one PEM-encoded X.509 certificate block, at most ${MAX_CERTIFICATE_LENGTH} characters`),
};

/**
 * A mutation input's rules. Omitted fields are not sent upstream; an explicit null is refused,
 * since nothing in the contract can be cleared (clientMutationId excepted: it is ours, not the
 * upstream's). Keys without rules (enums, clientMutationId) pass through.
 */
export function inputRules<Shape extends z.ZodRawShape>(shape: Shape, options: { changes?: readonly string[] } = {}) {
  const { changes } = options;
  const noNulls = z.looseObject({}).superRefine((input, context) => {
    for (const [key, value] of Object.entries(input)) {
      if (value === null && key !== 'clientMutationId') {
        context.addIssue({ code: 'custom', path: [key], message: 'must not be null: omit the field to leave it unchanged' });
      }
    }
  });
  const fields = z.looseObject(shape).superRefine((input, context) => {
    if (changes?.every((key) => (input as Record<string, unknown>)[key] === undefined)) {
      context.addIssue({ code: 'custom', path: [], message: `must change at least one of: ${changes.join(', ')}` });
    }
  });
  return noNulls.pipe(fields);
}
