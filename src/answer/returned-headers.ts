import { NO_STORE } from '../http/cache-control.js';
import { mergedHeaders, type ReceivedHeaders, withNotices } from '../http/merged-headers.js';
import { type OperationRecord, OperationSlot } from '../operation-record.js';
import type { UpstreamCall } from '../upstream/client.js';

/** The upstream calls of each operation whose headers went out with its response's own; later ones go with its last part. */
const returnedFor = new OperationSlot<ReadonlySet<UpstreamCall>>();

/**
 * The headers the response of these records is given beside the gateway's own, which they never
 * replace: the listed headers (RETURN_HEADERS) of their upstream answers and of those a read cache
 * hit replays, merged (`mergedHeaders`), with the gateway's own notices (`Deprecation`, `Sunset`,
 * `Link` of deprecated fields), and the gateway's own policy (`NO_STORE`) in place of the REST API's `Cache-Control`
 * where an answer may not be kept. Undefined when there is nothing to give.
 */
export function returnedHeaders(records: readonly OperationRecord[], returnHeaders: readonly string[]): Record<string, string> | undefined {
  // The gateway's own notices go out whatever RETURN_HEADERS lists: those of the operations that ran, and
  // those a hit replays (stored only as they went out: the REST API's, as listed, with the gateway's).
  const notices = records.flatMap((record) => [record.noticeHeaders, record.replayedHeaders].filter((headers) => headers !== undefined));
  if ((returnHeaders.length === 0 && notices.length === 0) || records.length === 0) return undefined;
  const sources: ReceivedHeaders[] = records.flatMap(headersOf);
  const merged = withNotices(mergedHeaders(sources, returnHeaders), notices);
  if (merged['cache-control'] !== undefined && records.some(mayNotBeKept)) merged['cache-control'] = NO_STORE;
  return merged;
}

/**
 * The listed headers of the upstream calls of an answer in parts that finished after its response
 * went out, merged the same way, for its last part's `extensions.upstreamHeaders`.
 */
export function laterHeaders(record: OperationRecord, returnHeaders: readonly string[]): Record<string, string> {
  const given = returnedFor.get(record);
  const later = record.upstreamCalls.filter((call): call is UpstreamCall => call !== undefined && !given?.has(call));
  return mergedHeaders(
    later.map((call) => call.headers),
    returnHeaders,
  );
}

/** The headers a record's answer gives: those its read cache hit replays, and those of its calls over by now, marked as given. */
function headersOf(record: OperationRecord): ReceivedHeaders[] {
  const done = record.upstreamCalls.filter((call): call is UpstreamCall => call !== undefined);
  returnedFor.set(record, new Set(done));
  return [...(record.replayedHeaders ? [record.replayedHeaders] : []), ...done.map((call) => call.headers)];
}

/** An answer with an error, to a mutation, or in parts (whose later parts are not yet known), is never to be kept, whatever the REST API said. */
const mayNotBeKept = (record: OperationRecord) =>
  record.errorCodes.length > 0 || record.operationType === 'mutation' || record.incremental !== undefined;
