import { GraphQLError } from 'graphql';
import { ErrorCode } from '../errors.js';

/**
 * The one place where upstream failures become GraphQL errors.
 *
 * An upstream answer can carry several error objects, while a resolver can only throw one error.
 * The first becomes the thrown error; the rest ride along in `additional` and are spliced into
 * the response at the same path by the `useUpstreamErrors` plugin.
 */
export class UpstreamFailure extends GraphQLError {
  readonly additional: readonly GraphQLError[];
  /** The HTTP status the upstream answered with; undefined when no answer came (timeout, no connection, open circuit). */
  readonly status: number | undefined;

  constructor(errors: readonly GraphQLError[], status?: number) {
    const [first, ...rest] = errors;
    if (!first) throw new TypeError('UpstreamFailure needs at least one error');
    super(first.message, { extensions: first.extensions });
    this.additional = rest;
    this.status = status;
  }
}

/** The HTTP status behind an upstream call's failure, if an answer came. */
export function statusOf(error: unknown): number | undefined {
  return error instanceof UpstreamFailure ? error.status : undefined;
}

const statusCodes: Record<number, ErrorCode> = {
  400: ErrorCode.BAD_USER_INPUT,
  422: ErrorCode.BAD_USER_INPUT,
  401: ErrorCode.UNAUTHENTICATED,
  403: ErrorCode.FORBIDDEN,
  404: ErrorCode.NOT_FOUND,
  409: ErrorCode.CONFLICT,
  429: ErrorCode.RATE_LIMITED,
};

export function codeForStatus(status: number): ErrorCode {
  return statusCodes[status] ?? ErrorCode.UPSTREAM_ERROR;
}

const messageKeys = ['message', 'detail', 'title', 'error', 'description'] as const;

/**
 * Bounds on what one upstream answer can put into a GraphQL answer: the upstream is trusted to
 * describe its failure, not to decide how large or slow the gateway's answer gets.
 */
export const UPSTREAM_ERROR_BOUNDS = {
  /** Error objects mapped from one answer; the rest are counted in one more error. */
  errors: 20,
  /** Characters of a message. */
  messageLength: 500,
  /** Characters of the `code` and `field` passed on in `extensions.upstream.error`. */
  fieldLength: 100,
  /** Seconds of a `retryAfter`: a day, longer than any client waits. */
  retryAfterSeconds: 86_400,
} as const;

/** At most `max` UTF-16 units, never ending in half a surrogate pair; `…` marks a cut. */
function capped(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max;
  return `${text.slice(0, end)}…`;
}

/**
 * The caller's token, wherever an upstream echoes it (a message, a code), is replaced; so is anything
 * that reads as a bearer credential.
 */
function redacted(text: string, token: string | undefined): string {
  const withoutToken = token && token.length >= 8 ? text.split(token).join('[redacted]') : text;
  return withoutToken.replace(/\bBearer\s+[^\s"',;]+/gi, 'Bearer [redacted]');
}

/** The human text of one upstream error object, whichever key the upstream chose for it. */
export function messageOf(error: unknown): string | undefined {
  if (typeof error === 'string' && error.trim() !== '') return error;
  if (typeof error !== 'object' || error === null) return undefined;
  for (const key of messageKeys) {
    const value = (error as Record<string, unknown>)[key];
    if (typeof value === 'string' && value.trim() !== '') return value;
  }
  return undefined;
}

/**
 * Seconds to wait, from a Retry-After header holding either delta-seconds or an HTTP date, at most
 * a day. Undefined when the header is absent or unreadable.
 */
export function retryAfterSeconds(header: string | undefined, now = Date.now()): number | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  const max = UPSTREAM_ERROR_BOUNDS.retryAfterSeconds;
  // Compared as text first: 400 digits are a number JSON cannot write.
  if (/^\d+$/.test(value)) return value.length > 6 ? max : Math.min(Number(value), max);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.min(max, Math.max(0, Math.ceil((date - now) / 1000)));
}

/**
 * What a client may see of an upstream error object: its text (whichever key held it), code and
 * field, bounded and redacted. Nothing else of it is passed on.
 */
function visibleError(error: unknown, token: string | undefined): Record<string, string> | undefined {
  const visible: Record<string, string> = {};
  const message = messageOf(error);
  if (message !== undefined) visible.message = capped(redacted(message, token), UPSTREAM_ERROR_BOUNDS.messageLength);
  if (typeof error === 'object' && error !== null) {
    const { code, field } = error as Record<string, unknown>;
    for (const [key, value] of [
      ['code', code],
      ['field', field],
    ] as const) {
      if (typeof value !== 'string' && typeof value !== 'number') continue;
      visible[key] = capped(redacted(String(value), token), UPSTREAM_ERROR_BOUNDS.fieldLength);
    }
  }
  return Object.keys(visible).length > 0 ? visible : undefined;
}

export interface UpstreamErrorAnswer {
  status: number;
  /** The envelope's `errors` array, or anything else found there (it is checked here). */
  errors: unknown;
  retryAfter?: string | undefined;
  /** The caller's bearer token, removed wherever the upstream echoes it. @default none */
  token?: string | undefined;
}

/**
 * One GraphQL error per object in the envelope's errors array (the first UPSTREAM_ERROR_BOUNDS.errors
 * of them, and one more counting the rest), or one generic error. Only the contract's fields of
 * each object are passed on, bounded and redacted: an upstream's stack trace or host names stay out.
 */
export function upstreamFailure({ status, errors, retryAfter, token }: UpstreamErrorAnswer): UpstreamFailure {
  const code = codeForStatus(status);
  const extra: Record<string, unknown> = {};
  if (code === ErrorCode.RATE_LIMITED) {
    const seconds = retryAfterSeconds(retryAfter);
    if (seconds !== undefined) extra.retryAfter = seconds;
  }
  const all: readonly unknown[] = Array.isArray(errors) && errors.length > 0 ? errors : [undefined];
  const shown = all.length > UPSTREAM_ERROR_BOUNDS.errors ? all.slice(0, UPSTREAM_ERROR_BOUNDS.errors) : all;
  const mapped = shown.map((error) => {
    const visible = visibleError(error, token);
    return new GraphQLError(visible?.message ?? `The upstream service answered with HTTP status ${status}.`, {
      extensions: { code, ...extra, upstream: visible ? { status, error: visible } : { status } },
    });
  });
  const more = all.length - shown.length;
  if (more > 0) {
    mapped.push(
      new GraphQLError(`The upstream service reported ${more} more errors, not shown.`, {
        extensions: { code, ...extra, upstream: { status, omittedErrors: more } },
      }),
    );
  }
  return new UpstreamFailure(mapped, status);
}

function transportError(code: ErrorCode, message: string, status?: number): UpstreamFailure {
  return new UpstreamFailure([new GraphQLError(message, { extensions: { code } })], status);
}

// `status`, where given, is that of an answer whose headers came before the failure.
export const upstreamTimeout = (timeoutMs: number, status?: number) =>
  transportError(ErrorCode.UPSTREAM_TIMEOUT, `The upstream service did not answer within ${timeoutMs} ms.`, status);

export const upstreamUnavailable = (status?: number) =>
  transportError(ErrorCode.UPSTREAM_UNAVAILABLE, 'The upstream service could not be reached.', status);

/** An answer, or a record in it, that does not fit the contract; `status` when it came with one. */
export const upstreamBadResponse = (why: string, status?: number) =>
  transportError(ErrorCode.UPSTREAM_BAD_RESPONSE, `The upstream service sent a response the gateway cannot read: ${why}.`, status);

/** The failure of a call that outlived the deadline of the operation it was made for. */
export class DeadlineExceeded extends UpstreamFailure {}

export const deadlineExceeded = (deadlineMs: number, status?: number) =>
  new DeadlineExceeded(
    [
      new GraphQLError(`The operation used up its deadline of ${deadlineMs} ms before the upstream service answered.`, {
        extensions: { code: ErrorCode.UPSTREAM_TIMEOUT },
      }),
    ],
    status,
  );

export const circuitOpen = () =>
  transportError(
    ErrorCode.UPSTREAM_UNAVAILABLE,
    'The upstream service is failing, so the gateway has stopped calling it for a short while. Try again later.',
  );
