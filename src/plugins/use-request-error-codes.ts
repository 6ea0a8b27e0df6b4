import type { GraphQLError } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { ErrorCode } from '../errors.js';

/**
 * Errors about a request as a whole that graphql-js raises without a code of ours: variables that
 * do not fit their types. This gives them a stable code, and
 * rewrites the `originalError` Yoga adds to a body that is not JSON, which echoes part of that body.
 *
 * The errors were made for this request alone, so they are amended in place: Yoga derives the
 * HTTP status from the very same objects.
 */
export function useRequestErrorCodes(): Plugin {
  return {
    onResultProcess({ result }) {
      if (isAsyncIterable(result)) return;
      for (const one of Array.isArray(result) ? result : [result]) {
        for (const error of one.errors ?? []) amend(error);
      }
    },
  };
}

function amend(error: GraphQLError): void {
  const extensions = error.extensions as Record<string, unknown>;
  // Yoga puts JSON.parse's message there, which quotes part of the caller's body back. The key stays:
  // Yoga reads its presence to answer 400 rather than 200 under `Accept: application/json`.
  const original = extensions.originalError as { name?: unknown } | undefined;
  if (original?.name === 'SyntaxError') extensions.originalError = { name: 'SyntaxError', message: 'The body is not valid JSON.' };
  // Without a path the error stopped the request before execution: after parsing and validation
  // (which carry Yoga's codes), and the plugins' own refusals (which carry ours), only variable coercion is left.
  if (extensions.code === undefined && error.path === undefined) extensions.code = ErrorCode.BAD_USER_INPUT;
}
