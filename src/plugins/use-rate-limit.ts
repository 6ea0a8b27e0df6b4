import type { IncomingMessage } from 'node:http';
import { getOperationAST, Kind, type OperationDefinitionNode, parse } from 'graphql';
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import { isAsyncIterable, mapAsyncIterator } from 'graphql-yoga';
import { defaultSettings } from '../config/settings.js';
import { rateLimited } from '../errors.js';
import { recordOf } from '../operation-record.js';
import { callerKeyOf } from '../state/caller-key.js';
import type { OperationCounter } from '../state/operation-counter.js';
import type { RateDecision } from '../state/operation-limiter.js';

export interface RateLimitOptions {
  /** What counts each operation once, and knows the callers the upstream vouched for (src/state/operation-counter.ts). */
  counter: OperationCounter;
  /** Lexical tokens read when telling whether a refused text is introspection, as parsing counts them (MAX_TOKENS). @default 1000 */
  maxTokens?: number;
}

const DEFAULTS = defaultSettings();

/** Text that may belong to an introspection query: only such a text is parsed to tell. */
const MAY_INTROSPECT = /__(schema|type|typename)\b/;

/**
 * At most RATE_LIMIT per caller in each RATE_LIMIT_WINDOW_MS, in RATE_LIMIT_UNIT, every operation
 * of a batch counting: a refusal is HTTP 429 with an integer `Retry-After`, the RateLimit headers
 * and `RATE_LIMITED` with `retryAfter` (the code an upstream 429 gets). In operations, each is
 * counted and refused here, before anything is parsed or sent upstream; in calls, its estimate is
 * charged before it runs (useUpstreamBudget, which knows it). Once it ran, or its last part went
 * out, it is settled: what it did not spend given back, its caller vouched for when the upstream
 * answered its credential. Who a caller is, and what is taken and given back, are the
 * `OperationCounter`'s.
 *
 * Introspection is never limited: in operations, an operation past the limit whose text may
 * introspect is parsed, and let through when it asks for nothing but `__schema`, `__type` and
 * `__typename` (counted all the same); in calls it costs none. `/health`, `/ready` and GraphiQL's
 * files are answered before this plugin runs.
 */
export function useRateLimit({ counter, maxTokens = DEFAULTS.maxTokens }: RateLimitOptions): Plugin {
  return {
    onParams: ({ params, request, context }) => {
      const decide = (decisions: readonly RateDecision[]) => {
        const refusal = decisions.find((decision) => !decision.allowed);
        if (refusal && !introspectsOnly(params, maxTokens)) throw rateLimited(refusal);
      };
      const decisions = counter.count(
        recordOf(context),
        callerKeyOf(request),
        request.headers.get('x-forwarded-for'),
        (context as { req?: IncomingMessage }).req?.socket.remoteAddress,
      );
      // Counted in this process, the decisions come at once, and the request pays for no promise.
      return decisions instanceof Promise ? decisions.then(decide) : decide(decisions);
    },
    onExecutionResult: ({ request, context, result, setResult }) => {
      const settle = () => counter.settle(recordOf(context), callerKeyOf(request));
      // An answer in parts makes its calls as its parts go out: it is settled once they are out.
      if (isAsyncIterable(result)) setResult(mapAsyncIterator(result, (part) => part, undefined, settle));
      else settle();
    },
  };
}

/**
 * Whether a refused operation is introspection, which is never limited: parsed here, for a refusal
 * whose text may be one, within MAX_TOKENS as every parse is, so that a refusal never costs more
 * than an operation served.
 */
function introspectsOnly({ query, operationName }: GraphQLParams, maxTokens: number): boolean {
  if (typeof query !== 'string' || !MAY_INTROSPECT.test(query)) return false;
  let operation: OperationDefinitionNode | null | undefined;
  try {
    operation = getOperationAST(parse(query, { maxTokens }), operationName);
  } catch {
    return false;
  }
  return (
    operation?.operation === 'query' &&
    operation.selectionSet.selections.every((selection) => selection.kind === Kind.FIELD && selection.name.value.startsWith('__'))
  );
}
