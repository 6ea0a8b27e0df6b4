import type { GraphQLError } from 'graphql';
import { handleStreamOrSingleExecutionResult, type Plugin } from 'graphql-yoga';
import { errorAt, withErrorsMapped } from '../errors.js';
import { UpstreamFailure } from '../upstream/errors.js';

/**
 * A resolver can throw only one error, but one upstream answer can hold several error objects.
 * This puts the others into the response next to the first, at the same path.
 */
export function useUpstreamErrors(): Plugin {
  return {
    onExecute: () => ({
      // Each part of an answer in parts too (`@defer`, `@stream`): a later page's failure is reported whole.
      onExecuteDone: (payload) =>
        handleStreamOrSingleExecutionResult(payload, ({ result, setResult }) => {
          const added = withErrorsMapped(result, (errors) => (errors.some(hasAdditional) ? errors.flatMap(withAdditional) : undefined));
          if (added) setResult(added);
        }),
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
