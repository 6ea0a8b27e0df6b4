import type { RequestSummary } from '../../src/observability/request-summary.js';

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
    executed: true,
    upstreamStatuses: [200],
    outcome: 'ok',
    errorCodes: [],
    ...fields,
  };
}
