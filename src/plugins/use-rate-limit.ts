import type { IncomingMessage } from 'node:http';
import { GraphQLError, getOperationAST, Kind, type OperationDefinitionNode, parse } from 'graphql';
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import { defaultSettings } from '../config/settings.js';
import { ErrorCode } from '../errors.js';
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
 * At most RATE_LIMIT_OPERATIONS operations per caller in each RATE_LIMIT_WINDOW_MS, every operation
 * of a batch counting, decided before anything is parsed or sent upstream: a refusal is HTTP 429
 * with an integer `Retry-After`, the RateLimit headers and `RATE_LIMITED` with `retryAfter` (the code
 * an upstream 429 gets).
 *
 * Who a caller is, and the count of each operation once, are the `OperationCounter`'s; this plugin
 * refuses what it refuses, and vouches for a caller whose credential the upstream answered.
 *
 * Introspection is never limited: an operation past the limit whose text may introspect is parsed,
 * and let through when it asks for nothing but `__schema`, `__type` and `__typename` (counted all
 * the same). `/health`, `/ready` and GraphiQL's files are answered before this plugin runs.
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
    onExecutionResult: ({ request, context }) => counter.vouchFor(recordOf(context), callerKeyOf(request)),
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

function rateLimited({ limit, remaining, resetSeconds }: RateDecision): GraphQLError {
  return new GraphQLError(
    `Too many operations: at most ${limit} per caller in each window (RATE_LIMIT_OPERATIONS). Retry after ${resetSeconds} s.`,
    {
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
    },
  );
}
