import type { GraphQLError } from 'graphql';
import { limitExceeded } from '../errors.js';

/**
 * How many upstream requests a root field needs for its arguments, declared on the field as
 * `extensions: { upstreamCalls }` and summed by useUpstreamBudget before execution. Root fields
 * without it need one; `__typename` and introspection none.
 */
export type UpstreamCallEstimate = (args: Record<string, unknown>) => number;

/** MAX_UPSTREAM_CALLS exceeded: before execution (`needed` known) or at the call past the budget. */
export function upstreamCallsExceeded(max: number, needed?: number): GraphQLError {
  const what = needed === undefined ? 'needs more than' : `would need ${needed} upstream requests, more than`;
  return limitExceeded(
    'upstreamCalls',
    max,
    `This operation ${what} the ${max} upstream requests allowed (MAX_UPSTREAM_CALLS). Ask for fewer records or fewer aliased fields per request.`,
  );
}
