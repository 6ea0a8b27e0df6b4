import { GraphQLError } from 'graphql';
import { handleStreamOrSingleExecutionResult, type Plugin } from 'graphql-yoga';
import { errorAt, withErrorsMapped } from '../errors.js';
import { upstreamBadResponse } from '../upstream/errors.js';

/**
 * Only root fields call the upstream; every field below them reads a record the upstream sent. So
 * an error below a root field that carries no code of ours (a string where a list belongs, a null
 * in a non-null field) means the upstream record does not fit the schema. The caller is told so,
 * as UPSTREAM_BAD_RESPONSE, instead of graphql-js' internal wording or a masked "Unexpected error.".
 */
export function useUpstreamShapeErrors(): Plugin {
  return {
    onExecute: () => ({
      // Each part of an answer in parts too (`@defer`, `@stream`): a record of a later page is checked as the first.
      onExecuteDone: (payload) =>
        handleStreamOrSingleExecutionResult(payload, ({ result, setResult }) => {
          const named = withErrorsMapped(result, (errors) =>
            errors.some(isShapeError) ? errors.map((error) => (isShapeError(error) ? asBadResponse(error) : error)) : undefined,
          );
          if (named) setResult(named);
        }),
    }),
  };
}

function isShapeError(error: GraphQLError): boolean {
  if ((error.path?.length ?? 0) < 2) return false;
  const original = error.originalError;
  return !(original instanceof GraphQLError && original.extensions.code !== undefined);
}

function asBadResponse(error: GraphQLError): GraphQLError {
  const field = error.path!.filter((segment) => typeof segment === 'string').join('.');
  const bad = upstreamBadResponse(`the record does not fit field "${field}"`);
  return errorAt(error, bad.message, bad.extensions);
}
