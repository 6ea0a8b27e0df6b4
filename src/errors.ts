import { GraphQLError } from 'graphql';

/**
 * Every `extensions.code` the gateway answers with. Documented in the README's error table;
 * values are part of the API and never change meaning.
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
  /** An operation limit (depth, aliases, tokens, directives, cost, upstream calls); `extensions.limit` names it. */
  LIMIT_EXCEEDED: 'LIMIT_EXCEEDED',
  /** A request body larger than MAX_BODY_BYTES (HTTP 413, answered before Yoga). */
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  /** A GET, or a POST that is not JSON, without the `x-graphql-yoga-csrf` header (HTTP 403). */
  CSRF_HEADER_REQUIRED: 'CSRF_HEADER_REQUIRED',
  /** TRUSTED_DOCUMENTS is set and the request sent query text, or no documentId (HTTP 400). */
  TRUSTED_DOCUMENT_REQUIRED: 'TRUSTED_DOCUMENT_REQUIRED',
  /** TRUSTED_DOCUMENTS is set and the documentId is not in the manifest (HTTP 400). */
  TRUSTED_DOCUMENT_NOT_FOUND: 'TRUSTED_DOCUMENT_NOT_FOUND',
  INTERNAL_SERVER_ERROR: 'INTERNAL_SERVER_ERROR',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

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

/**
 * A new error at the same place in the answer as `place`: same path and locations. graphql-jit's
 * errors carry locations without the AST nodes they are computed from, so those are copied as well.
 */
export function errorAt(place: GraphQLError, message: string, extensions: GraphQLError['extensions']): GraphQLError {
  const error = new GraphQLError(message, {
    nodes: place.nodes,
    source: place.source,
    positions: place.positions,
    path: place.path,
    extensions,
  });
  if (error.locations === undefined && place.locations !== undefined) Object.assign(error, { locations: place.locations });
  return error;
}
