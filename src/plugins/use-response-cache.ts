import { createHash } from 'node:crypto';
import type { ExecutionResult } from 'graphql';
import { type GraphQLParams, isAsyncIterable, type Plugin } from 'graphql-yoga';
import { mergedHeaders, NOTICE_HEADERS, withNotices } from '../http/merged-headers.js';
import { recordOf } from '../observability/operation-record.js';
import { callerKeyOf } from '../state/caller-key.js';
import type { ResponseCache } from '../state/response-cache.js';

export interface ResponseCacheOptions {
  /** Where answers are kept: this process or Redis (src/state/). */
  cache: ResponseCache;
  /** How long an answer is served again (CACHE_TTL_MS); 0 turns the cache off. */
  cacheTtlMs: number;
  /** The upstream answer headers returned to the client (RETURN_HEADERS); a hit gives back those of them that describe the answer itself. @default [] */
  returnHeaders?: readonly string[];
}

/** Headers that describe an answer rather than the moment of its call (as a rate limit's do): a hit gives them back. */
const REPLAYED_HEADERS = ['cache-control', ...NOTICE_HEADERS];

/**
 * A per-caller read cache in front of the whole pipeline. A query that the same caller (the hash of
 * its Bearer credential) sent with the same text, operation name and variables within CACHE_TTL_MS
 * is answered from the cache, before parsing: no execution, no upstream call. Only answers without a
 * single error, whose operation the upstream answered for this credential, are kept (`{ __typename }`
 * sent with a junk token is not); a request with `Cache-Control: no-cache` (or `no-store`) skips the lookup and
 * refreshes the entry; a mutation drops every answer its caller has, before and after it runs, and
 * an answer is stored only if its caller's answers were not dropped since its lookup, so that none
 * read before a mutation is served after it. Another caller never finds an entry, and a request
 * without a Bearer credential neither reads nor writes. What it did is the operation record's
 * `cache`, for the log line and the metrics. The headers the caller sends upstream (FORWARD_HEADERS,
 * an `Accept-Language` say) are part of the key: they may change the upstream's answer. A hit gives
 * back the answer's returned `Cache-Control`, `Deprecation`, `Sunset` and `Link`, never the rate
 * limit of an old call.
 */
export function useResponseCache({ cache, cacheTtlMs, returnHeaders = [] }: ResponseCacheOptions): Plugin {
  const replayed = REPLAYED_HEADERS.filter((name) => returnHeaders.includes(name));
  return {
    onParams: async ({ params, request, context, setResult }) => {
      const record = recordOf(context);
      const caller = callerKeyOf(request);
      if (caller === undefined || typeof params.query !== 'string') return;
      // A miss the HTTP front looked up already (src/cached-answers.ts), which answers a hit itself.
      if (record.cacheEntry) {
        record.cache = 'miss';
        record.operationType ??= 'query';
        return;
      }
      const key = requestKey(params, record.forwardedHeaders?.headers);
      const bypass = asksFresh(request.headers.get('cache-control'));
      // Looked up even when bypassed: the generation it gives is what a fresh answer is stored under.
      const { answer, generation } = await cache.get(caller, key);
      record.cache = bypass ? 'bypass' : answer ? 'hit' : 'miss';
      // Only queries are kept, so one the cache looked up is counted as one until it runs as what its document says.
      record.operationType ??= 'query';
      if (bypass || !answer) {
        record.cacheEntry = { caller, request: key, generation };
        return;
      }
      // A hit never runs: its name is the one it ran under.
      record.operationName = answer.operationName;
      record.replayedHeaders = answer.headers;
      // Sent as it was stored, neither executed nor parsed nor serialised again: the hooks after this one
      // read only whether a result has data and errors, which a stored answer has and has not.
      setResult({ data: STORED_ANSWER, stringify: () => answer.body } as ExecutionResult);
    },
    onExecute: async ({ args }) => {
      const record = recordOf(args.contextValue);
      const entry = record.cacheEntry;
      if (!entry || record.operationType !== 'mutation') return;
      record.cacheEntry = undefined;
      await cache.dropCaller(entry.caller);
      return { onExecuteDone: () => cache.dropCaller(entry.caller) };
    },
    onExecutionResult: async ({ result, context }) => {
      const record = recordOf(context);
      const entry = record.cacheEntry;
      // Only an answer the upstream gave for this credential, in this operation: one that made no call vouches for no token.
      // Never one that shows its upstream calls (X-Debug-Upstream), which the next request must not be given.
      if (
        !entry ||
        record.debug ||
        !record.acceptedByUpstream() ||
        !result ||
        isAsyncIterable(result) ||
        result.errors?.length ||
        !result.data
      )
        return;
      const upstream = mergedHeaders(
        record.upstreamCalls.map((call) => call?.headers ?? {}),
        replayed,
      );
      const headers = withNotices(upstream, record.noticeHeaders ? [record.noticeHeaders] : []);
      const answer = {
        body: JSON.stringify(result),
        operationName: record.operationName,
        headers: Object.keys(headers).length > 0 ? headers : undefined,
      };
      await cache.set(entry.caller, entry.request, answer, cacheTtlMs, entry.generation);
    },
  };
}

/** Whether a request's Cache-Control asks for a fresh answer (`no-cache` or `no-store`): the cache is not read for it. */
export const asksFresh = (cacheControl: string | null | undefined) => /\bno-(cache|store)\b/i.test(cacheControl ?? '');

/** The data of a result answered from the cache, whose text is the stored one. */
const STORED_ANSWER = Object.freeze({ storedAnswer: true });

/** What identifies a request for the cache: its document text, operation name and variables, and the headers it sends upstream, hashed. */
export function requestKey(
  { query, operationName, variables }: Pick<GraphQLParams, 'query'> & { operationName?: string | null; variables?: object | null },
  forwarded: Readonly<Record<string, string>> | undefined,
): string {
  return createHash('sha256')
    .update(JSON.stringify([query, operationName ?? null, variables ?? null, forwarded ?? null]))
    .digest('base64url');
}
