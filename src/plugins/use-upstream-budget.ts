import type { Plugin } from 'graphql-yoga';
import type { GatewayContext } from '../context.js';
import { dryRunOfReads, rateLimited, refusedBeforeRunning } from '../errors.js';
import { recordOf } from '../operation-record.js';
import { estimateUpstreamCalls } from '../schema/upstream-calls.js';
import type { OperationCounter } from '../state/operation-counter.js';
import type { RateDecision } from '../state/operation-limiter.js';

export interface UpstreamBudgetOptions {
  /** The rate limit's count, charged the estimate when it counts REST calls (RATE_LIMIT_UNIT); none when the limit is off. */
  counter?: OperationCounter | undefined;
}

/**
 * An operation's upstream calls, before it runs: estimated (`estimateUpstreamCalls`, noted on its
 * record as `estimatedCalls`), reserved from the HTTP request's MAX_UPSTREAM_CALLS, which the
 * operations of a batch share, and charged to its caller's rate limit when it counts REST calls.
 * An operation that does not fit the budget is answered LIMIT_EXCEEDED, one that does not fit its
 * caller's allowance RATE_LIMITED (429), without a single upstream request. The Caller counts real
 * calls too, so an estimate that falls short still cannot fan out past the budget.
 *
 * A query under a dry run (`X-Debug-Upstream: dry-run`) is estimated and not run: it answers
 * DRY_RUN with its estimate, as a mutation's write is built and not sent.
 *
 * The entity representations of `_entities` (subgraph mode) are reserved from the same budget
 * first: no more than its calls can find, so a list of 25,000 is refused here, whole, before a
 * single one is looked at.
 */
export function useUpstreamBudget({ counter }: UpstreamBudgetOptions = {}): Plugin<GatewayContext> {
  return {
    onExecute: ({ args, setResultAndStopExecution }) => {
      const { calls, representations } = estimateUpstreamCalls(args.schema, args.document, args.variableValues, args.operationName);
      const record = recordOf(args.contextValue);
      record.estimatedCalls = calls;
      const { budget } = args.contextValue.caller;
      const error = budget.reserveRepresentations(representations) ?? budget.reserve(calls);
      if (error) return setResultAndStopExecution({ errors: [refusedBeforeRunning(error)] });
      if (record.debug?.dryRun && record.operationType === 'query') return setResultAndStopExecution({ errors: [dryRunOfReads(calls)] });
      const decisions = counter?.charge(record, calls) ?? [];
      const decide = (taken: readonly RateDecision[]) => {
        const refusal = taken.find((decision) => !decision.allowed);
        if (refusal) setResultAndStopExecution({ errors: [rateLimited(refusal, calls)] });
      };
      // Counted in this process, the decisions come at once, and the operation pays for no promise.
      return decisions instanceof Promise ? decisions.then(decide) : decide(decisions);
    },
  };
}
