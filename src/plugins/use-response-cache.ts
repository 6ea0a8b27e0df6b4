import { createHash } from 'node:crypto';
import type { ExecutionResult } from 'graphql';
import { type GraphQLParams, isAsyncIterable, type Plugin } from 'graphql-yoga';
import { isBearer } from '../context.js';
import { recordOf } from '../observability/operation-record.js';
import { callerKeyOf } from '../state/caller-key.js';
import type { ResponseCache } from '../state/response-cache.js';

export interface ResponseCacheOptions {
  /** Where answers are kept: this process or Redis (src/state/). */
  cache: ResponseCache;
  /** How long an answer is served again (CACHE_TTL_MS); 0 turns the cache off. */
  cacheTtlMs: number;
}

/**
 * A per-caller read cache in front of the whole pipeline. A query that the same caller (the hash of
 * its Bearer credential) sent with the same text, operation name and variables within CACHE_TTL_MS
 * is answered from the cache, before parsing: no execution, no upstream call. Only answers without a
 * single error are kept; a request with `Cache-Control: no-cache` (or `no-store`) skips the lookup and
 * refreshes the entry; a mutation drops every answer its caller has, before and after it runs, so
 * that none read before it is served after it. Another caller never finds an entry, and a request
 * without a Bearer credential neither reads nor writes. What it did is the operation record's
 * `cache`, for the log line and the metrics.
 */
export function useResponseCache({ cache, cacheTtlMs }: ResponseCacheOptions): Plugin {
  return {
    onParams: async ({ params, request, context, setResult }) => {
      const authorization = request.headers.get('authorization');
      const record = recordOf(context);
      if (!record || !isBearer(authorization) || typeof params.query !== 'string') return;
      const entry = { caller: callerKeyOf(request, authorization), request: requestKey(params) };
      record.cacheEntry = entry;
      if (/\bno-(cache|store)\b/i.test(request.headers.get('cache-control') ?? '')) {
        record.cache = 'bypass';
        return;
      }
      const body = await cache.get(entry.caller, entry.request);
      if (body === undefined) {
        record.cache = 'miss';
        return;
      }
      record.cacheEntry = undefined;
      record.cache = 'hit';
      // Only queries are kept: a hit is one, though it never runs.
      record.operationType = 'query';
      // Sent as it was stored, neither executed nor parsed nor serialised again: the hooks after this one
      // read only whether a result has data and errors, which a stored answer has and has not.
      setResult({ data: STORED_ANSWER, stringify: () => body } as ExecutionResult);
    },
    onExecute: async ({ args }) => {
      const record = recordOf(args.contextValue);
      const entry = record?.cacheEntry;
      if (!entry || record.operationType !== 'mutation') return;
      record.cacheEntry = undefined;
      await cache.dropCaller(entry.caller);
      return { onExecuteDone: () => cache.dropCaller(entry.caller) };
    },
    onExecutionResult: async ({ result, context }) => {
      const entry = recordOf(context)?.cacheEntry;
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
