import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { GraphQLError, getOperationAST, Kind, type OperationDefinitionNode, parse } from 'graphql';
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import { defaultSettings } from '../config/settings.js';
import { ErrorCode } from '../errors.js';
import { recordOf } from '../observability/operation-record.js';
import { callerKeyOf } from '../state/caller-key.js';
import type { OperationLimiter, RateDecision } from '../state/operation-limiter.js';
import { VouchedCallers } from '../state/vouched-callers.js';

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
const MAY_INTROSPECT = /__(schema|type|typename)\b/;

/**
 * At most RATE_LIMIT_OPERATIONS operations per caller in each RATE_LIMIT_WINDOW_MS, every operation
 * of a batch counting, decided before anything is parsed or sent upstream: a refusal is HTTP 429
 * with an integer `Retry-After`, the RateLimit headers and `RATE_LIMITED` with `retryAfter` (the code
 * an upstream 429 gets).
 *
 * A caller is its address (`trustProxyHops` back along `X-Forwarded-For`, an IP address or else the
 * connection's), and a Bearer credential is a caller of its own (its hash, however the scheme and
 * spaces are spelt) once the upstream has accepted it (`VouchedCallers`): until then its operations
 * count against its address as well, so that tokens the upstream refuses, or nobody checked, cannot
 * buy fresh allowances.
 *
 * Introspection is never limited: an operation past the limit whose text may introspect is parsed,
 * and let through when it asks for nothing but `__schema`, `__type` and `__typename` (counted all
 * the same). `/health`, `/ready` and GraphiQL's files are answered before this plugin runs.
 */
export function useRateLimit(options: RateLimitOptions | OperationCounter): Plugin {
  const counter = options instanceof OperationCounter ? options : new OperationCounter(options);
  return {
    onParams: ({ params, request, context }) => {
      const decide = (decisions: readonly RateDecision[]) => {
        const refusal = decisions.find((decision) => !decision.allowed);
        if (refusal && !introspectsOnly(params, counter.maxTokens)) throw rateLimited(refusal);
      };
      // Taken by the HTTP front already (src/cached-answers.ts): counted once.
      const taken = recordOf(context).rateDecisions;
      if (taken) return decide(taken);
      const decisions = counter.count(
        callerKeyOf(request),
        request.headers.get('x-forwarded-for'),
        (context as { req?: IncomingMessage }).req?.socket.remoteAddress,
      );
      // Counted in this process, the decisions come at once, and the request pays for no promise.
      return decisions instanceof Promise ? decisions.then(decide) : decide(decisions);
    },
    onExecutionResult: ({ request, context }) => {
      const caller = callerKeyOf(request);
      const record = recordOf(context);
      // An answer from the read cache was the upstream's to this very credential, within the cache's time to live.
      if (caller !== undefined && (record.cache === 'hit' || record.acceptedByUpstream())) counter.vouch(caller);
    },
  };
}

/**
 * What useRateLimit counts, and the callers it has seen vouched for: one per gateway, shared with
 * the HTTP front, which counts the read cache hits it answers itself (src/cached-answers.ts).
 */
export class OperationCounter {
  readonly #limiter: OperationLimiter;
  readonly #trustProxyHops: number;
  readonly #vouched = new VouchedCallers();
  readonly maxTokens: number;

  constructor({ limiter, trustProxyHops = DEFAULTS.trustProxyHops, maxTokens = DEFAULTS.maxTokens }: RateLimitOptions) {
    this.#limiter = limiter;
    this.#trustProxyHops = trustProxyHops;
    this.maxTokens = maxTokens;
  }

  /**
   * Counts one operation of `caller` (a callerKey; undefined without a credential) from the address
   * its `X-Forwarded-For` and connection give: the decisions of every key it counts against, at
   * once when counted in this process.
   */
  count(
    caller: string | undefined,
    forwardedFor: string | null,
    remoteAddress: string | undefined,
  ): RateDecision[] | Promise<RateDecision[]> {
    const address = `address:${addressOf(forwardedFor, remoteAddress, this.#trustProxyHops)}`;
    const callers = caller === undefined ? [address] : this.#vouched.has(caller) ? [caller] : [caller, address];
    const decisions = callers.map((key) => this.#limiter.take(key, 1));
    return decisions.some((decision) => decision instanceof Promise) ? Promise.all(decisions) : (decisions as RateDecision[]);
  }

  /** A caller the upstream has answered: it counts as itself from now on. */
  vouch(caller: string): void {
    this.#vouched.add(caller);
  }
}

/** Where a request comes from: `trustProxyHops` back along `X-Forwarded-For` when that entry is an IP address, or else its connection's address. */
function addressOf(forwardedFor: string | null, remoteAddress: string | undefined, trustProxyHops: number): string {
  const forwarded = (forwardedFor ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  // Each trusted proxy appended the address it saw; the entries before those are the client's to forge,
  // and an entry that is no address was not written by a proxy (a client reaching the pod directly).
  const entry = trustProxyHops > 0 ? forwarded.at(-trustProxyHops) : undefined;
  return (entry !== undefined && isIP(entry) !== 0 ? entry : undefined) ?? remoteAddress ?? 'unknown';
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
