import type { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { errorAt } from '../errors.js';
import { UpstreamFailure } from '../upstream/errors.js';

/**
 * A resolver can throw only one error, but one upstream answer can hold several error objects.
 * This puts the others into the response next to the first, at the same path.
 */
export function useUpstreamErrors(): Plugin {
  return {
    onExecute: () => ({
      onExecuteDone: ({ result, setResult }) => {
        if (!('errors' in result) || !result.errors?.some(hasAdditional)) return;
        setResult({ ...result, errors: result.errors.flatMap(withAdditional) });
      },
    }),
  };
}

function hasAdditional(error: GraphQLError): boolean {
  return error.originalError instanceof UpstreamFailure && error.originalError.additional.length > 0;
}

function withAdditional(error: GraphQLError): GraphQLError[] {
  if (!(error.originalError instanceof UpstreamFailure)) return [error];
  return [error, ...error.originalError.additional.map((extra) => errorAt(error, extra.message, extra.extensions))];
}
