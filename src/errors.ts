import { GraphQLError, type Source } from 'graphql';

/**
 * Every `extensions.code` the gateway answers with, its own and graphql-yoga's. docs/errors.md
 * lists each once (a test checks it against this object); values are part of the API and never
 * change meaning.
 */
export const ErrorCode = {
  BAD_USER_INPUT: 'BAD_USER_INPUT',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
  RATE_LIMITED: 'RATE_LIMITED',
  UPSTREAM_ERROR: 'UPSTREAM_ERROR',
  UPSTREAM_TIMEOUT: 'UPSTREAM_TIMEOUT',
  UPSTREAM_UNAVAILABLE: 'UPSTREAM_UNAVAILABLE',
  UPSTREAM_BAD_RESPONSE: 'UPSTREAM_BAD_RESPONSE',
  /** An operation limit (document size, depth, aliases, tokens, directives, `@defer`/`@stream` and `initialCount`, cost, upstream calls, entity representations); `extensions.limit` names it. */
  LIMIT_EXCEEDED: 'LIMIT_EXCEEDED',
  /** A request body larger than MAX_BODY_BYTES (HTTP 413, answered before Yoga). */
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  /** A request body with a Content-Encoding (gzip or any other), which the gateway does not inflate (HTTP 415, answered before Yoga). */
  UNSUPPORTED_CONTENT_ENCODING: 'UNSUPPORTED_CONTENT_ENCODING',
  /** No type the Accept header allows can be written (HTTP 406, before anything is parsed or run). */
  NOT_ACCEPTABLE: 'NOT_ACCEPTABLE',
  /** A body whose Content-Type no parser reads, e.g. `application/xml` or none at all (HTTP 415). */
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  /** A GET, or a POST that is not JSON, without the `x-graphql-yoga-csrf` header or a Bearer token (HTTP 403; docs/clients.md#csrf). */
  CSRF_HEADER_REQUIRED: 'CSRF_HEADER_REQUIRED',
  /** TRUSTED_DOCUMENTS is set and the request sent query text, or no documentId (HTTP 400). */
  TRUSTED_DOCUMENT_REQUIRED: 'TRUSTED_DOCUMENT_REQUIRED',
  /** TRUSTED_DOCUMENTS is set and the documentId is not in the manifest (HTTP 400). */
  TRUSTED_DOCUMENT_NOT_FOUND: 'TRUSTED_DOCUMENT_NOT_FOUND',
  /** Automatic persisted queries: the hash alone was sent and this process does not hold its text (HTTP 404); send it once with the text. */
  PERSISTED_QUERY_NOT_FOUND: 'PERSISTED_QUERY_NOT_FOUND',
  /** Automatic persisted queries: the text sent does not have the hash sent with it (HTTP 400). */
  PERSISTED_QUERY_MISMATCH: 'PERSISTED_QUERY_MISMATCH',
  /** A write not sent: the request asked for a dry run (`X-Debug-Upstream: dry-run`), and `extensions.upstream.dryRuns` holds what it would have sent where the request may see it. */
  DRY_RUN: 'DRY_RUN',
  /** An Idempotency-Key sent before with another request (another document, operation name or variables) of the same caller (HTTP 422); nothing ran. */
  IDEMPOTENCY_KEY_REUSED: 'IDEMPOTENCY_KEY_REUSED',
  /** An Idempotency-Key whose first request is still running (HTTP 409, with Retry-After); nothing ran. */
  IDEMPOTENCY_KEY_IN_USE: 'IDEMPOTENCY_KEY_IN_USE',
  /** An Idempotency-Key whose request reached the upstream and got no answer: whether it was done is unknown, and it is never sent again (HTTP 409). */
  IDEMPOTENCY_OUTCOME_UNKNOWN: 'IDEMPOTENCY_OUTCOME_UNKNOWN',
  /** A mutation with an Idempotency-Key while the shared state's Redis fails: refused rather than run unprotected (HTTP 503, with Retry-After). */
  IDEMPOTENCY_UNAVAILABLE: 'IDEMPOTENCY_UNAVAILABLE',
  /** Anything unexpected; the message is masked. */
  INTERNAL_SERVER_ERROR: 'INTERNAL_SERVER_ERROR',
  /** graphql-yoga's: the document does not parse. */
  GRAPHQL_PARSE_FAILED: 'GRAPHQL_PARSE_FAILED',
  /** graphql-yoga's: the document does not fit the schema. */
  GRAPHQL_VALIDATION_FAILED: 'GRAPHQL_VALIDATION_FAILED',
  /** graphql-yoga's: the HTTP request is not a GraphQL request (body not JSON, no query, a mutation by GET, a method not served). */
  BAD_REQUEST: 'BAD_REQUEST',
  /** graphql-yoga's: the document holds several operations and `operationName` names none of them (HTTP 400). */
  OPERATION_RESOLUTION_FAILURE: 'OPERATION_RESOLUTION_FAILURE',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** The code of an error in an answer; an error without one is an unexpected, masked one. */
export function codeOf(error: { readonly extensions?: { readonly [key: string]: unknown } | undefined }): string {
  const code = error.extensions?.code;
  return typeof code === 'string' ? code : ErrorCode.INTERNAL_SERVER_ERROR;
}

/** The codes that say the upstream, not the caller or the gateway, failed. */
export const UPSTREAM_FAULTS: ReadonlySet<string> = new Set([
  ErrorCode.UPSTREAM_ERROR,
  ErrorCode.UPSTREAM_TIMEOUT,
  ErrorCode.UPSTREAM_UNAVAILABLE,
  ErrorCode.UPSTREAM_BAD_RESPONSE,
]);

export interface InputIssue {
  /** Dotted path of the offending argument, e.g. `input.name`. */
  path: string;
  message: string;
}

export function badUserInput(message: string, issues?: InputIssue[]): GraphQLError {
  return new GraphQLError(message, {
    extensions: issues ? { code: ErrorCode.BAD_USER_INPUT, issues } : { code: ErrorCode.BAD_USER_INPUT },
  });
}

export function unauthenticated(): GraphQLError {
  return new GraphQLError('A bearer token is required: send the header "Authorization: Bearer <token>".', {
    extensions: { code: ErrorCode.UNAUTHENTICATED },
  });
}

/** The error of a write a dry run did not send. */
/**
 * Past the rate limit (RATE_LIMIT in RATE_LIMIT_UNIT): HTTP 429, an integer `Retry-After`, the
 * RateLimit headers in that unit, and `retryAfter`. `needed`: the REST calls an operation needs,
 * when the limit counts them; `remaining` is then what was left, which may be above 0.
 */
export function rateLimited(
  { limit, remaining, resetSeconds }: { limit: number; remaining: number; resetSeconds: number },
  needed?: number,
): GraphQLError {
  const what =
    needed === undefined
      ? `Too many operations: at most ${limit} per caller in each window (RATE_LIMIT).`
      : `Too many upstream calls: this operation needs ${needed} of the ${remaining} left of ${limit} per caller in each window (RATE_LIMIT).`;
  return new GraphQLError(`${what} Retry after ${resetSeconds} s.`, {
    extensions: {
      code: ErrorCode.RATE_LIMITED,
      retryAfter: resetSeconds,
      http: {
        status: 429,
        headers: {
          'retry-after': String(resetSeconds),
          'ratelimit-limit': String(limit),
          'ratelimit-remaining': String(remaining),
          'ratelimit-reset': String(resetSeconds),
        },
      },
    },
  });
}

/** A query under a dry run: estimated, not run. */
export function dryRunOfReads(calls: number): GraphQLError {
  return new GraphQLError(`Dry run: the reads were not sent; they would have made ${calls} upstream ${calls === 1 ? 'call' : 'calls'}.`, {
    extensions: { code: ErrorCode.DRY_RUN, estimatedCalls: calls },
  });
}

/** A write a dry run built and did not send; `shown`: the request may see it, in `extensions.upstream.dryRuns`. */
export function dryRun(shown: boolean): GraphQLError {
  const where = shown ? '; extensions.upstream.dryRuns holds it.' : '.';
  return new GraphQLError(`Dry run: the upstream request was built, not sent${where}`, { extensions: { code: ErrorCode.DRY_RUN } });
}

export type LimitName =
  | 'documentBytes'
  | 'depth'
  | 'aliases'
  | 'tokens'
  | 'directives'
  | 'incrementalDirectives'
  | 'initialCount'
  | 'cost'
  | 'introspectionCost'
  | 'upstreamCalls'
  | 'representations';

/** The error of every operation limit: one code, `extensions.limit` says which limit and `max` its value. */
export function limitExceeded(limit: LimitName, max: number, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: ErrorCode.LIMIT_EXCEEDED, limit, max } });
}

/**
 * `error` as the refusal of a whole operation before anything of it ran: HTTP 400, as a validation
 * error gets for `application/graphql-response+json` (GraphQL over HTTP).
 */
export function refusedBeforeRunning(error: GraphQLError): GraphQLError {
  return copiedError(error, { extensions: { ...error.extensions, http: { status: 400 } } });
}

/** What a copy of an error may change; the rest is the original's. */
interface ErrorChanges {
  message?: string;
  extensions?: GraphQLError['extensions'];
  originalError?: Error | undefined;
  source?: Source;
  positions?: readonly number[] | undefined;
}

/**
 * The one way an error is remade: a copy of `error` at the same place in the answer (its path, its
 * locations and what they are computed from, its original error), with `changes`. graphql-jit's
 * errors carry locations without the AST nodes they are computed from, so those are copied as well.
 */
export function copiedError(error: GraphQLError, { message = error.message, ...changes }: ErrorChanges = {}): GraphQLError {
  const copy = new GraphQLError(message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: error.extensions,
    ...changes,
  });
  if (copy.locations === undefined && error.locations !== undefined) Object.assign(copy, { locations: error.locations });
  return copy;
}

/** A new error at the same place in the answer as `place`, its own: another message and extensions, no original error. */
export function errorAt(place: GraphQLError, message: string, extensions: GraphQLError['extensions']): GraphQLError {
  return copiedError(place, { message, extensions, originalError: undefined });
}

/** A result as execution hands it over: a whole one, or a part of an answer in parts, whose increments carry errors of their own. */
interface ResultErrors {
  errors?: readonly GraphQLError[];
  incremental?: ReadonlyArray<{ errors?: readonly GraphQLError[] }>;
}

/**
 * `result` with each of its error lists (its own, and each increment's) replaced by what `map`
 * makes of it; `map` returns undefined to leave a list as it is, and so does this when no list changed.
 */
export function withErrorsMapped<R extends ResultErrors>(
  result: R,
  map: (errors: readonly GraphQLError[]) => GraphQLError[] | undefined,
): R | undefined {
  const errors = result.errors?.length ? map(result.errors) : undefined;
  let incremental: Array<{ errors?: readonly GraphQLError[] }> | undefined;
  result.incremental?.forEach((increment, index) => {
    const mapped = increment.errors?.length ? map(increment.errors) : undefined;
    if (mapped === undefined) return;
    incremental ??= [...result.incremental!];
    incremental[index] = { ...increment, errors: mapped };
  });
  if (errors === undefined && incremental === undefined) return undefined;
  return { ...result, ...(errors ? { errors } : {}), ...(incremental ? { incremental } : {}) };
}
