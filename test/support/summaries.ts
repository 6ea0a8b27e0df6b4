import type { RequestSummary } from '../../src/observability/request-summary.js';
import type { OperationRecord } from '../../src/operation-record.js';
import type { UpstreamCall } from '../../src/upstream/client.js';

/**
 * A request summary as the metrics and the log line receive it: by default a query that ran, made
 * one upstream call the upstream accepted, and succeeded, from no named client. A test gives only
 * the fields its point is about.
 */
export function requestSummary(fields: Partial<RequestSummary> = {}): RequestSummary {
  return {
    requestId: 'r',
    client: { name: undefined, version: undefined },
    operationName: undefined,
    operationType: 'query',
    status: 200,
    durationMs: 1,
    upstreamCalls: 1,
    estimatedCalls: 1,
    executed: true,
    upstreamStatuses: [200],
    outcome: 'ok',
    errorCodes: [],
    ...fields,
  };
}

/** An upstream call as the client reports it: by default a GET of `/api_keys` that got 200 at once. */
export function upstreamCall(fields: Partial<UpstreamCall> = {}): UpstreamCall {
  return {
    method: 'GET',
    route: '/api_keys',
    path: '/api_keys?limit=25',
    body: undefined,
    status: 200,
    sent: true,
    startedAt: 0,
    durationMs: 1,
    retries: [],
    coalesced: false,
    headers: {},
    errorCode: undefined,
    requestId: 'r',
    forwardedHeaders: [],
    ...fields,
  };
}

/** Reports calls with these statuses (and `fields`) to `record`, as a Caller does; an undefined status is a call still in flight. */
export function recordCalls(
  record: OperationRecord | undefined,
  statuses: ReadonlyArray<number | undefined>,
  fields: Partial<UpstreamCall> = {},
): void {
  for (const status of statuses) {
    const report = record?.callSent();
    if (status !== undefined) report?.(upstreamCall({ ...fields, status }));
  }
}
