import type { IncomingMessage } from 'node:http';
import { GraphQLError, getOperationAST, Kind, type OperationDefinitionNode, parse } from 'graphql';
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import { defaultSettings } from '../config/settings.js';
import { isBearer } from '../context.js';
import { ErrorCode } from '../errors.js';
import { callerKeyOf } from '../state/caller-key.js';
import type { OperationLimiter, RateDecision } from '../state/operation-limiter.js';

export interface RateLimitOptions {
  /** The counters: in this process or in Redis (src/state/). */
  limiter: OperationLimiter;
  /** Proxies whose `X-Forwarded-For` entries are believed (TRUST_PROXY_HOPS). @default 0 */
  trustProxyHops?: number;
  /** Lexical tokens read when telling whether a refused text is introspection, as parsing counts them (MAX_TOKENS). @default 1000 */
  maxTokens?: number;
}

const DEFAULTS = defaultSettings();

/** Text that may belong to an introspection query: only such a text is parsed to tell. */
const MAY_INTROSPECT = /__(schema|type)\b/;

/**
 * At most RATE_LIMIT_OPERATIONS operations per caller in each RATE_LIMIT_WINDOW_MS, every operation
 * of a batch counting, decided before anything is parsed or sent upstream: a refusal is HTTP 429
 * with an integer `Retry-After`, the RateLimit headers and `RATE_LIMITED` with `retryAfter` (the code
 * an upstream 429 gets). A caller is the hash of its Bearer credential, or without one its address
 * (`trustProxyHops` back along `X-Forwarded-For`).
 *
 * Introspection is never limited: an operation past the limit whose text may introspect is parsed,
 * and let through when it asks for nothing but `__schema`, `__type` and `__typename` (counted all
 * the same). `/health`, `/ready` and GraphiQL's files are answered before this plugin runs.
 */
export function useRateLimit({
  limiter,
  trustProxyHops = DEFAULTS.trustProxyHops,
  maxTokens = DEFAULTS.maxTokens,
}: RateLimitOptions): Plugin {
  return {
    onParams: ({ params, request, context }) => {
      const decide = (decision: RateDecision) => {
        if (!decision.allowed && !introspectsOnly(params, maxTokens)) throw rateLimited(decision);
      };
      // Counted in this process, the decision comes at once, and the request pays for no promise.
      const decision = limiter.take(callerOf(request, context as { req?: IncomingMessage }, trustProxyHops), 1);
      return decision instanceof Promise ? decision.then(decide) : decide(decision);
    },
  };
}

/** Whose allowance a request takes from: a hash of its Bearer credential, or its address. */
function callerOf(request: Request, context: { req?: IncomingMessage }, trustProxyHops: number): string {
  const authorization = request.headers.get('authorization');
  if (isBearer(authorization)) return callerKeyOf(request, authorization);
  const forwarded = (request.headers.get('x-forwarded-for') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  // Each trusted proxy appended the address it saw; the entries before those are the client's to forge.
  const address = trustProxyHops > 0 ? forwarded.at(-trustProxyHops) : undefined;
  return `address:${address ?? context.req?.socket.remoteAddress ?? 'unknown'}`;
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
