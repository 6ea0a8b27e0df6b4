import { type ClientIdentity, clientOf } from '../http/client-identity.js';
import { requestIdFrom } from '../http/request-id.js';
import { type CacheOutcome, type IdempotencyOutcome, OperationRecord } from '../operation-record.js';

/** `client_closed`: its client went away before its answer was out, whatever the answer would have been. */
type Outcome = 'ok' | 'partial' | 'error' | 'client_closed';

/** What logs and metrics learn about one finished GraphQL request: never variables or tokens. */
export interface RequestSummary {
  requestId: string;
  /** The operation's place in a batched request (a JSON array); absent for a single operation. */
  batch?: { index: number; size: number };
  /** The calling app, from its client-awareness headers. */
  client: ClientIdentity;
  /** The operation's name as `recordedOperationName` bounds it, or undefined for an anonymous or unparsable one. */
  operationName: string | undefined;
  operationType: 'query' | 'mutation' | 'subscription' | undefined;
  /** HTTP status of the response. */
  status: number;
  /** From reading the request to its response; for an answer in parts, to its last part. */
  durationMs: number;
  /**
   * An answer in parts (`@defer`, `@stream`): how many went out, when the first did (from reading
   * the request), and whether the last did (false when the client went away first).
   */
  incremental?: { parts: number; firstPartMs: number; complete: boolean };
  /** Upstream calls the operation sent. */
  upstreamCalls: number;
  /** Upstream calls it was estimated to make before it ran; undefined when it did not get that far. */
  estimatedCalls: number | undefined;
  /** The operation passed validation and ran. */
  executed: boolean;
  /** The HTTP status each of its upstream calls got, in order; undefined where no answer came. */
  upstreamStatuses: ReadonlyArray<number | undefined>;
  /** What the read cache did; absent when it had no say (off, a request without a token, a refusal before it). */
  cache?: CacheOutcome;
  /** What became of its Idempotency-Key; absent without one (or on a query, or in a dry run). */
  idempotency?: IdempotencyOutcome;
  /** `ok`: no errors; `partial`: errors and some non-null top-level field; `client_closed`: its client left before its answer; `error`: the rest. */
  outcome: Outcome;
  /** Distinct `extensions.code` values of the response's errors, in order of appearance. */
  errorCodes: string[];
  /** Client headers of FORWARD_HEADERS not sent upstream, their values unsendable (a control character, over 1 KiB); absent when none. */
  droppedHeaders?: readonly string[];
  /** The schema coordinates the operation used, once it ran; absent otherwise. */
  coordinates?: readonly string[];
  /** The deprecated ones among them; absent when none. */
  deprecated?: readonly string[];
}

/** What the log line and the metrics learn of an operation from its record, once its response (its last part, for an answer in parts) is out with `status`. */
function summaryOf(record: OperationRecord, status: number, durationMs: number): RequestSummary {
  const failed = record.errorCodes.length > 0 || status >= 400;
  const upstreamStatuses = record.upstreamCalls.map((call) => call?.status);
  const { incremental } = record;
  return {
    requestId: record.requestId,
    client: record.client,
    ...(record.batch ? { batch: record.batch } : {}),
    operationName: record.operationName,
    operationType: record.operationType,
    status,
    durationMs,
    ...(incremental
      ? { incremental: { parts: incremental.parts, firstPartMs: incremental.firstPartMs, complete: incremental.complete } }
      : {}),
    upstreamCalls: upstreamStatuses.length,
    estimatedCalls: record.estimatedCalls,
    executed: record.executed,
    upstreamStatuses,
    ...(record.cache ? { cache: record.cache } : {}),
    ...(record.idempotency ? { idempotency: record.idempotency } : {}),
    outcome: record.clientClosed ? 'client_closed' : !failed ? 'ok' : record.hasData ? 'partial' : 'error',
    errorCodes: record.errorCodes,
    ...(record.forwardedHeaders?.dropped.length ? { droppedHeaders: record.forwardedHeaders.dropped } : {}),
    ...(record.coordinates ? { coordinates: record.coordinates } : {}),
    ...(record.deprecations ? { deprecated: record.deprecations.map(({ coordinate }) => coordinate) } : {}),
  };
}

/**
 * Hands `onSummary` the summary of an operation once its response is out with its status and no
 * part of it is still to come (its last part out, or its client gone); `now` is when that was.
 */
export function sumUp(record: OperationRecord, onSummary: (summary: RequestSummary) => void, now = performance.now()): void {
  if (record.status === undefined || (record.incremental && !record.incremental.ended)) return;
  onSummary(summaryOf(record, record.status, now - record.startedAt));
}

/** The summary of a request refused before GraphQL saw it (the HTTP front's 413 and 415), by its headers: nothing parsed, nothing run. */
export function refusalSummary(
  { headers, durationMs }: { headers: Pick<Headers, 'get'>; durationMs: number },
  { status, code }: { status: number; code: string },
): RequestSummary {
  const record = new OperationRecord(requestIdFrom(headers.get('x-request-id')), clientOf(headers));
  record.errorCodes.push(code);
  return summaryOf(record, status, durationMs);
}
