import { createHash } from 'node:crypto';
import { type ExecutionResult, getOperationAST } from 'graphql';
import { type GraphQLParams, isAsyncIterable, type Plugin } from 'graphql-yoga';
import { isBearer } from '../context.js';
import type { CacheOutcome } from '../observability/request-summary.js';
import { callerKeyOf } from '../state/caller-key.js';
import type { ResponseCache } from '../state/response-cache.js';

export interface ResponseCacheOptions {
  /** Where answers are kept: this process or Redis (src/state/). */
  cache: ResponseCache;
  /** How long an answer is served again (CACHE_TTL_MS); 0 turns the cache off. */
  cacheTtlMs: number;
  /** Told, per operation, whether the answer came from the cache: for the log line and the metrics. @default none */
  onLookup?: (context: object, outcome: CacheOutcome) => void;
}

/**
 * A per-caller read cache in front of the whole pipeline. A query that the same caller (the hash of
 * its Bearer credential) sent with the same text, operation name and variables within CACHE_TTL_MS
 * is answered from the cache, before parsing: no execution, no upstream call. Only answers without a
 * single error are kept; a request with `Cache-Control: no-cache` (or `no-store`) skips the lookup and
 * refreshes the entry; a mutation drops every answer its caller has, before and after it runs, so
 * that none read before it is served after it. Another caller never finds an entry, and a request
 * without a Bearer credential neither reads nor writes.
 */
export function useResponseCache({ cache, cacheTtlMs, onLookup }: ResponseCacheOptions): Plugin {
  /** The cache key of each operation that missed, by its context, until its result is known. */
  const misses = new WeakMap<object, { caller: string; request: string }>();
  return {
    onParams: async ({ params, request, context, setResult }) => {
      const authorization = request.headers.get('authorization');
      if (!isBearer(authorization) || typeof params.query !== 'string') return;
      const caller = callerKeyOf(request, authorization);
      const key = requestKey(params);
      misses.set(context, { caller, request: key });
      if (/\bno-(cache|store)\b/i.test(request.headers.get('cache-control') ?? '')) {
        onLookup?.(context, 'bypass');
        return;
      }
      const body = await cache.get(caller, key);
      if (body === undefined) {
        onLookup?.(context, 'miss');
        return;
      }
      misses.delete(context);
      onLookup?.(context, 'hit');
      // Sent as it was stored, neither executed nor parsed nor serialised again: the hooks after this one
      // read only whether a result has data and errors, which a stored answer has and has not.
      setResult({ data: STORED_ANSWER, stringify: () => body } as ExecutionResult);
    },
    onExecute: async ({ args }) => {
      const entry = misses.get(args.contextValue);
      if (!entry || getOperationAST(args.document, args.operationName)?.operation !== 'mutation') return;
      misses.delete(args.contextValue);
      await cache.dropCaller(entry.caller);
      return { onExecuteDone: () => cache.dropCaller(entry.caller) };
    },
    onExecutionResult: async ({ result, context }) => {
      const entry = misses.get(context);
      if (!entry || !result || isAsyncIterable(result) || result.errors?.length || !result.data) return;
      await cache.set(entry.caller, entry.request, JSON.stringify(result), cacheTtlMs);
    },
  };
}

/** The data of a result answered from the cache, whose text is the stored one. */
const STORED_ANSWER = Object.freeze({ storedAnswer: true });

/** What identifies a request for the cache: its document text, operation name and variables, hashed. */
function requestKey({ query, operationName, variables }: GraphQLParams): string {
  return createHash('sha256')
    .update(JSON.stringify([query, operationName ?? null, variables ?? null]))
    .digest('base64url');
}
