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

  constructor(errors: readonly GraphQLError[]) {
    const [first, ...rest] = errors;
    if (!first) throw new TypeError('UpstreamFailure needs at least one error');
    super(first.message, { extensions: first.extensions });
    this.additional = rest;
  }
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
 * Seconds to wait, from a Retry-After header holding either delta-seconds or an HTTP date.
 * Undefined when the header is absent or unreadable.
 */
export function retryAfterSeconds(header: string | undefined, now = Date.now()): number | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

export interface UpstreamErrorAnswer {
  status: number;
  /** The envelope's `errors` array, or anything else found there (it is checked here). */
  errors: unknown;
  retryAfter?: string | undefined;
}

/** One GraphQL error per object in the envelope's errors array, or one generic error. */
export function upstreamFailure({ status, errors, retryAfter }: UpstreamErrorAnswer): UpstreamFailure {
  const code = codeForStatus(status);
  const extra: Record<string, unknown> = {};
  if (code === ErrorCode.RATE_LIMITED) {
    const seconds = retryAfterSeconds(retryAfter);
    if (seconds !== undefined) extra.retryAfter = seconds;
  }
  const objects = Array.isArray(errors) && errors.length > 0 ? errors : [undefined];
  return new UpstreamFailure(
    objects.map(
      (error) =>
        new GraphQLError(messageOf(error) ?? `The upstream service answered with HTTP status ${status}.`, {
          extensions: {
            code,
            ...extra,
            upstream: error === undefined ? { status } : { status, error },
          },
        }),
    ),
  );
}

function transportError(code: ErrorCode, message: string): UpstreamFailure {
  return new UpstreamFailure([new GraphQLError(message, { extensions: { code } })]);
}

export const upstreamTimeout = (timeoutMs: number) =>
  transportError(ErrorCode.UPSTREAM_TIMEOUT, `The upstream service did not answer within ${timeoutMs} ms.`);

export const upstreamUnavailable = () => transportError(ErrorCode.UPSTREAM_UNAVAILABLE, 'The upstream service could not be reached.');

export const upstreamBadResponse = (why: string) =>
  transportError(ErrorCode.UPSTREAM_BAD_RESPONSE, `The upstream service sent a response the gateway cannot read: ${why}.`);

export const deadlineExceeded = (deadlineMs: number) =>
  transportError(
    ErrorCode.UPSTREAM_TIMEOUT,
    `The operation used up its deadline of ${deadlineMs} ms before the upstream service answered.`,
  );

export const circuitOpen = () =>
  transportError(
    ErrorCode.UPSTREAM_UNAVAILABLE,
    'The upstream service is failing, so the gateway has stopped calling it for a short while. Try again later.',
  );
