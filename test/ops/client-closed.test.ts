import { expect, vi } from 'vitest';
import { AUTH } from '../support/auth.js';
import { gatewayOverUpstream } from '../support/fixtures.js';
import { metricLines } from '../support/gateway.js';
import { captureLogs, lineBase } from '../support/logs.js';

/**
 * A client that leaves while its operation waits on the upstream is no upstream failure: the
 * aborted call fails UPSTREAM_UNAVAILABLE on the gateway's side only, and counting it as an error
 * let anyone with a junk token page on-call (the error-rate alert divides the error counter). Its
 * operation gets an outcome of its own, `client_closed`, logged at info, counted apart.
 */
const logs = captureLogs('info');
const it = gatewayOverUpstream(undefined, { logger: logs.logger });

it('a client that leaves mid-call is client_closed: logged at info, counted apart, no error counted', async ({ gateway, upstream }) => {
  let arrived!: () => void;
  const received = new Promise<void>((resolve) => (arrived = resolve));
  // The upstream holds its answer until the gateway hangs up.
  upstream.answer(() => () => arrived());
  const controller = new AbortController();
  const pending = fetch(gateway.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': 'leaving-1', ...AUTH },
    body: JSON.stringify({ query: 'query Keys { apiKeys(first: 9) { nodes { id } } }' }),
    signal: controller.signal,
  }).catch((error: unknown) => error);
  await received;
  controller.abort();
  await pending;
  await vi.waitFor(() => expect(logs.lines('graphql request').filter((line) => line.requestId === 'leaving-1')).toHaveLength(1));
  expect(logs.lines('graphql request').filter((line) => line.requestId === 'leaving-1')).toEqual([
    {
      ...lineBase(30),
      requestId: 'leaving-1',
      clientName: null,
      clientVersion: null,
      operationName: 'Keys',
      operationType: 'query',
      status: 200,
      durationMs: expect.any(Number),
      upstreamCalls: 1,
      estimatedCalls: 1,
      outcome: 'client_closed',
      errorCodes: ['UPSTREAM_UNAVAILABLE'],
      msg: 'graphql request',
    },
  ]);
  const lines = await metricLines(gateway, 'gateway_graphql_');
  expect(lines.filter((line) => line.startsWith('gateway_graphql_errors_total'))).toEqual([]);
  expect(lines.filter((line) => line.startsWith('gateway_graphql_client_closed_total'))).toEqual(['gateway_graphql_client_closed_total 1']);
  expect(lines.filter((line) => line.startsWith('gateway_graphql_requests_total'))).toEqual([
    // A name the upstream never vouched for takes no label of its own.
    'gateway_graphql_requests_total{operation_name="other",operation_type="query",outcome="client_closed"} 1',
  ]);
});
