import type { ExecutionResult } from 'graphql';
import { isAsyncIterable, mapAsyncIterator, type Plugin } from 'graphql-yoga';
import { costOf, showsCost, withCost } from '../answer/cost.js';
import { type CostShown, defaultSettings } from '../config/settings.js';
import { asksCost } from '../http/cost.js';
import { requestRecords } from '../operation-record.js';

export interface OperationCostOptions {
  /** Which answers carry their cost: `always`, or `asked` (X-Cost: 1, or the upstream view) (COST_SHOWN). @default "always" */
  costShown?: CostShown;
}

/**
 * What each operation cost in REST calls, in its answer's `extensions.cost` (`estimatedCalls`
 * before it ran, `actualCalls` it made): on every answer with COST_SHOWN=always (the default outside
 * production), refusals and read cache hits included (which made none); else to a request that
 * asks (`showsCost`).
 * Under `@defer` and `@stream`, the last part carries it, once every call is made.
 */
export function useOperationCost({ costShown = defaultSettings().costShown }: OperationCostOptions = {}): Plugin {
  return {
    onResultProcess: ({ request, result, setResult, serverContext }) => {
      const asked = asksCost(request.headers.get('x-cost'));
      const records = requestRecords(serverContext);
      if (isAsyncIterable(result)) {
        const [record] = records;
        if (!record || !showsCost(costShown, record, asked)) return;
        setResult(
          mapAsyncIterator(result, (part: ExecutionResult & { hasNext?: boolean }) =>
            part.hasNext === false ? withCost(part, costOf(record)) : part,
          ),
        );
        return;
      }
      const results = Array.isArray(result) ? result : [result];
      const costed = results.map((one: ExecutionResult, index) => {
        const record = records[index];
        return record && !isAsyncIterable(one) && showsCost(costShown, record, asked) ? withCost(one, costOf(record)) : one;
      });
      setResult(Array.isArray(result) ? costed : costed[0]!);
    },
  };
}
