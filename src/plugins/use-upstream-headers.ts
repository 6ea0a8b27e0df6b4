import type { ExecutionResult } from 'graphql';
import { isAsyncIterable, mapAsyncIterator, type Plugin } from 'graphql-yoga';
import type { ForwardedHeader } from '../config/parsers.js';
import { forwardedHeaders } from '../http/forwarded-headers.js';
import { mergedHeaders, type ReceivedHeaders, withNotices } from '../http/merged-headers.js';
import { type OperationRecord, recordOf, requestRecords } from '../observability/operation-record.js';
import type { UpstreamCall } from '../upstream/client.js';

export interface UpstreamHeadersOptions {
  /** Client request headers sent upstream with every call, under their upstream names (FORWARD_HEADERS). @default [] */
  forwardHeaders?: readonly ForwardedHeader[];
  /** Upstream answer headers returned to the client, merged (RETURN_HEADERS). @default [] */
  returnHeaders?: readonly string[];
}

/**
 * Headers both ways between the client and the REST API, through the operations' records.
 *
 * - Forwarded: the listed client headers (`forwardedHeaders`) are put on the operation's record,
 *   which its Caller sends with every upstream call; a value that could not be sent on is dropped
 *   and counted (the request is served all the same).
 * - Returned: the listed headers of every upstream answer of the request, its batch's operations'
 *   and those a read cache hit replays, are merged into one line each by their meaning
 *   (`mergedHeaders`), with the gateway's own notices of the records (`Deprecation`, `Sunset`,
 *   `Link` of deprecated fields, useFieldUsage), and set on the response, never over a header it
 *   already has (the gateway's own, such as its RateLimit headers on a 429). An operation with an error, or a mutation, makes
 *   the answer `no-store`, whatever the REST API said.
 * - An answer in parts carries the headers of the calls made before it went out; the later ones go,
 *   merged the same way, into the last part's `extensions.upstreamHeaders`.
 */
export function useUpstreamHeaders({ forwardHeaders = [], returnHeaders = [] }: UpstreamHeadersOptions = {}): Plugin {
  return {
    onParams: ({ request, context }) => {
      if (forwardHeaders.length > 0) recordOf(context).forwardedHeaders = forwardedHeaders(request.headers, forwardHeaders);
    },
    onResultProcess: ({ result, setResult, serverContext }) => {
      const [record] = requestRecords(serverContext);
      if (returnHeaders.length === 0 || !record || !isAsyncIterable(result)) return;
      setResult(
        mapAsyncIterator(result, (part: ExecutionResult & { hasNext?: boolean }) => {
          if (part.hasNext !== false) return part;
          const later = record.upstreamCalls.filter((call) => call !== undefined && !record.headersReturnedFor?.has(call));
          const headers = mergedHeaders(
            later.map((call) => call!.headers),
            returnHeaders,
          );
          return Object.keys(headers).length === 0 ? part : { ...part, extensions: { ...part.extensions, upstreamHeaders: headers } };
        }),
      );
    },
    onResponse: ({ response, serverContext }) => {
      const returned = returnedHeaders(requestRecords(serverContext), returnHeaders);
      for (const [name, value] of Object.entries(returned ?? {})) {
        if (!response.headers.has(name)) response.headers.set(name, value);
      }
    },
  };
}

/**
 * The headers the response of these records is given beside the gateway's own, which they never
 * replace: the listed headers of their upstream answers (and of those a read cache hit replays),
 * merged, with the gateway's own notices, and `private, no-store` in place of the REST API's
 * `Cache-Control` where an answer may not be kept. Undefined when there is nothing to give. The
 * HTTP front gives a hit it answers itself the same (src/cached-answers.ts).
 */
export function returnedHeaders(records: readonly OperationRecord[], returnHeaders: readonly string[]): Record<string, string> | undefined {
  // The gateway's own notices go out whatever RETURN_HEADERS lists: those of the operations that ran, and
  // those a hit replays (stored only as they went out: the REST API's, as listed, with the gateway's).
  const notices = records.flatMap((record) => [record.noticeHeaders, record.replayedHeaders].filter((headers) => headers !== undefined));
  if ((returnHeaders.length === 0 && notices.length === 0) || records.length === 0) return undefined;
  const sources: ReceivedHeaders[] = records.flatMap(headersOf);
  const merged = withNotices(mergedHeaders(sources, returnHeaders), notices);
  if (merged['cache-control'] !== undefined && records.some(mayNotBeKept)) merged['cache-control'] = 'private, no-store';
  return merged;
}

/** The headers a record's answer gives: those its read cache hit replays, and those of its calls over by now, marked as given. */
function headersOf(record: OperationRecord): ReceivedHeaders[] {
  const done = record.upstreamCalls.filter((call): call is UpstreamCall => call !== undefined);
  record.headersReturnedFor = new Set(done);
  return [...(record.replayedHeaders ? [record.replayedHeaders] : []), ...done.map((call) => call.headers)];
}

/** An answer with an error, to a mutation, or in parts (whose later parts are not yet known), is never to be kept, whatever the REST API said. */
const mayNotBeKept = (record: OperationRecord) =>
  record.errorCodes.length > 0 || record.operationType === 'mutation' || record.incremental !== undefined;
