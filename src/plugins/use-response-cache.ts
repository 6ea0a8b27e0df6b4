import type { ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { asksFresh } from '../http/cache-control.js';
import { mergedHeaders, NOTICE_HEADERS, withNotices } from '../http/merged-headers.js';
import { type OperationRecord, OperationSlot, recordOf } from '../operation-record.js';
import { type CacheLookups, mayBeQuery, noteHit, requestKey, type StoredUnder } from '../state/cache-lookups.js';
import { callerKeyOf } from '../state/caller-key.js';
import type { CachedAnswer } from '../state/response-cache.js';

export interface ResponseCacheOptions {
  /** Where answers are kept (this process or Redis, src/state/), as operations look them up. */
  lookups: CacheLookups;
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
export function useResponseCache({ lookups, cacheTtlMs, returnHeaders = [] }: ResponseCacheOptions): Plugin {
  const { cache } = lookups;
  const replayed = REPLAYED_HEADERS.filter((name) => returnHeaders.includes(name));
  /** The lookup of an operation that missed or bypassed: its answer is stored under it. */
  const missed = new OperationSlot<StoredUnder>();
  return {
    onParams: async ({ params, request, context, setResult }) => {
      const caller = callerKeyOf(request);
      const { query, operationName, variables } = params;
      if (caller === undefined || typeof query !== 'string' || !mayBeQuery(query)) return;
      const record = recordOf(context);
      const key = requestKey({ query, operationName, variables }, record.forwardedHeaders?.headers);
      // Looked up even when bypassed: the generation it gives is what a fresh answer is stored under.
      const { answer, generation } = await lookups.lookUp(record, { caller, request: key });
      // Only queries are kept, so one the cache looked up is counted as one until it runs as what its document says.
      record.operationType ??= 'query';
      const bypass = asksFresh(request.headers.get('cache-control'));
      if (bypass || !answer) {
        record.cache = bypass ? 'bypass' : 'miss';
        missed.set(record, { caller, request: key, generation });
        return;
      }
      // A hit never runs: it is noted as the hit path notes one.
      noteHit(record, answer);
      // Sent as it was stored, neither executed nor parsed nor serialised again: the hooks after this one
      // read only whether a result has data and errors, which a stored answer has and has not.
      const { body } = answer;
      setResult({ data: STORED_ANSWER, stringify: () => body } as ExecutionResult);
    },
    onExecute: async ({ args }) => {
      const record = recordOf(args.contextValue);
      if (record.operationType === 'query') return;
      // A mutation is no lookup, whichever operation of its document it is: it was looked up as a query might have been.
      record.cache = undefined;
      missed.take(record);
      const caller = callerKeyOf(args.contextValue.request);
      if (record.operationType !== 'mutation' || caller === undefined) return;
      await cache.dropCaller(caller);
      return { onExecuteDone: () => cache.dropCaller(caller) };
    },
    onExecutionResult: async ({ result, context }) => {
      const record = recordOf(context);
      const lookup = missed.get(record);
      // Only an answer the upstream gave for this credential, in this operation: one that made no call vouches for no token.
      // Never one that shows its upstream calls (X-Debug-Upstream), which the next request must not be given.
      if (
        !lookup ||
        record.debug ||
        !record.acceptedByUpstream() ||
        !result ||
        isAsyncIterable(result) ||
        result.errors?.length ||
        !result.data
      )
        return;
      await cache.set(lookup.caller, lookup.request, answerOf(record, result, replayed), cacheTtlMs, lookup.generation);
    },
  };
}

/** What is kept of an operation's answer: its text, its name, and the headers a hit gives back (`replayed`, of every call, with its notices). */
function answerOf(record: OperationRecord, result: ExecutionResult, replayed: readonly string[]): CachedAnswer {
  const upstream = mergedHeaders(
    record.upstreamCalls.map((call) => call?.headers ?? {}),
    replayed,
  );
  const headers = withNotices(upstream, record.noticeHeaders ? [record.noticeHeaders] : []);
  return {
    body: JSON.stringify(result),
    operationName: record.operationName,
    headers: Object.keys(headers).length > 0 ? headers : undefined,
    storedAt: Date.now(),
  };
}

/** The data of a result answered from the cache, whose text is the stored one. */
const STORED_ANSWER = Object.freeze({ storedAnswer: true });
