import { readFileSync } from 'node:fs';
import type { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/errors.js';
import { createMetrics, MAX_CLIENT_LABELS, MAX_OPERATION_NAMES } from '../../src/observability/metrics.js';
import { AUTH } from '../support/auth.js';
import { gatewayOverUpstream } from '../support/fixtures.js';
import { envelope } from '../support/recording-upstream.js';
import { apiKeyRecord } from '../support/records.js';
import { requestSummary } from '../support/summaries.js';

/**
 * The GraphQL metrics' series are bounded in combination, whatever callers send: the worst case
 * docs/operations.md states (section Metrics) is reached here and not passed, and a fleet's load
 * (the issue that bounded them: 10,000 operations from 100 names × 20 apps × 5 versions, in
 * production) leaves /metrics small.
 */
const OPERATIONS_DOC = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
const GRAPHQL_METRICS = [
  'gateway_graphql_requests_total',
  'gateway_graphql_request_duration_seconds',
  'gateway_graphql_client_requests_total',
  'gateway_graphql_errors_total',
];

/** Each GraphQL metric's series (label sets, a histogram's buckets not counted apart) and sample lines. */
async function seriesOf(registry: Registry): Promise<Record<string, { series: number; lines: number }>> {
  const metrics = await registry.getMetricsAsJSON();
  return Object.fromEntries(
    GRAPHQL_METRICS.map((name) => {
      const values = metrics.find((metric) => metric.name === name)!.values;
      const series = new Set(values.map(({ labels }) => JSON.stringify({ ...labels, le: undefined })));
      return [name, { series: series.size, lines: values.length }];
    }),
  );
}

describe('GraphQL metric series, in combination', () => {
  it('reach at most the worst case docs/operations.md states, whatever names, clients, versions and codes come', async () => {
    const listed = Array.from({ length: MAX_CLIENT_LABELS }, (_, i) => `app-${i}`);
    const metrics = createMetrics({ clientNames: listed });
    const outcomes = ['ok', 'partial', 'error', 'client_closed'] as const;
    // Operations: half again as many names as take a label, of every type, outcome, vouched or not, anonymous too.
    for (let n = 0; n < MAX_OPERATION_NAMES * 1.5; n++) {
      for (const operationType of ['query', 'mutation', 'subscription', undefined] as const) {
        for (const outcome of outcomes) {
          for (const upstreamStatuses of [[200], [401]]) {
            metrics.observeRequest(requestSummary({ operationName: `Op${n}`, operationType, outcome, upstreamStatuses }));
            metrics.observeRequest(requestSummary({ operationType, outcome, upstreamStatuses }));
          }
        }
      }
    }
    // Clients: the listed ones and as many others, each with more versions than take a label, and none.
    for (const name of [...listed, ...listed.map((app) => `unlisted-${app}`), undefined]) {
      for (const version of [...Array.from({ length: MAX_CLIENT_LABELS + 5 }, (_, v) => `1.${v}`), undefined]) {
        for (const outcome of outcomes)
          metrics.observeRequest(requestSummary({ operationName: 'Keys', client: { name, version }, outcome }));
      }
    }
    for (const code of [...Object.values(ErrorCode), 'NOT_A_CODE_OF_OURS'])
      metrics.observeRequest(requestSummary({ errorCodes: [code], outcome: 'error' }));

    const names = MAX_OPERATION_NAMES + 2; // and `anonymous`, `other`
    const pairs = 2 + 2 * listed.length + MAX_CLIENT_LABELS; // none/none, other/other, each name's none and other, the pairs
    const worst = {
      gateway_graphql_requests_total: { series: names * 4 * 4, lines: names * 4 * 4 },
      gateway_graphql_request_duration_seconds: { series: names, lines: names * 14 },
      gateway_graphql_client_requests_total: { series: pairs * 4, lines: pairs * 4 },
      gateway_graphql_errors_total: { series: Object.keys(ErrorCode).length + 1, lines: Object.keys(ErrorCode).length + 1 },
    };
    expect(await seriesOf(metrics.registry)).toEqual(worst);
    const series = Object.values(worst).reduce((sum, { series }) => sum + series, 0);
    const lines = Object.values(worst).reduce((sum, { lines }) => sum + lines, 0);
    // The doc's table states each worst case, and the sum.
    for (const [name, { series }] of Object.entries(worst))
      expect(OPERATIONS_DOC).toContain(`| \`${name}\` | ${series.toLocaleString('en-US')} |`);
    expect(OPERATIONS_DOC).toContain(`| All four | ${series.toLocaleString('en-US')} | ${lines.toLocaleString('en-US')} lines |`);
  });
});

const fleetTest = gatewayOverUpstream(() => ({ body: envelope([apiKeyRecord(1)]) }), {
  production: true,
  metricsClientNames: Array.from({ length: 20 }, (_, i) => `app-${i}`),
});

describe("a fleet's load, in production", () => {
  fleetTest('10,000 operations from 100 names × 20 apps × 5 versions leave /metrics bounded', { timeout: 120_000 }, async ({ gateway }) => {
    const batches: Array<{ headers: Record<string, string>; names: number[] }> = [];
    for (let app = 0; app < 20; app++) {
      for (let version = 0; version < 5; version++) {
        const headers = { ...AUTH, 'apollographql-client-name': `app-${app}`, 'apollographql-client-version': `2.${version}.0` };
        for (let first = 0; first < 100; first += 10) batches.push({ headers, names: Array.from({ length: 10 }, (_, i) => first + i) });
      }
    }
    const send = async ({ headers, names }: (typeof batches)[number]) => {
      const response = await fetch(gateway.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(names.map((n) => ({ query: `query Op${n} { apiKeys(first: 1) { nodes { id } } }` }))),
      });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    };
    // Eight callers at a time, each batch of ten operations one request: 1,000 requests.
    const queue = [...batches];
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let batch = queue.shift(); batch; batch = queue.shift()) await send(batch);
      }),
    );
    const text = await (await fetch(gateway.metricsUrl)).text();
    const graphql = text.split('\n').filter((line) => line.startsWith('gateway_graphql_'));
    const count = (prefix: string) => graphql.filter((line) => line.startsWith(prefix)).length;
    expect(count('gateway_graphql_requests_total{')).toBe(100);
    expect(count('gateway_graphql_request_duration_seconds_count{')).toBe(100);
    expect(text).toContain(`gateway_graphql_requests_total{operation_name="Op0",operation_type="query",outcome="ok"} 100`);
    // 20 name@version pairs, whichever came first; the other apps' versions count as `other`.
    const clients = graphql.filter((line) => line.startsWith('gateway_graphql_client_requests_total{'));
    expect(clients.filter((line) => !line.includes('client_version="other"'))).toHaveLength(MAX_CLIENT_LABELS);
    expect(clients.length).toBeLessThanOrEqual(2 * MAX_CLIENT_LABELS);
    expect(clients.reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0)).toBe(10_000);
    // The four coordinates every operation used, for each listed app.
    const usage = graphql.filter((line) => line.startsWith('gateway_graphql_field_requests_total{'));
    expect(new Set(usage.map((line) => line.match(/coordinate="([^"]+)"/)![1]))).toEqual(
      new Set(['Query.apiKeys', 'Query.apiKeys(first:)', 'ApiKeyConnection.nodes', 'ApiKey.id']),
    );
    expect(usage).toHaveLength(4 * 20);
    expect(usage.reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0)).toBe(4 * 10_000);
    // The requests, their durations (14 lines each), the clients, the usage, and the count of clients that left.
    expect(graphql.length).toBe(100 + 100 * 14 + clients.length + usage.length + 1);
    // Was 8.4 MB in 54,245 lines; the process metrics add about 10 KB.
    expect(text.length).toBeLessThan(192 * 1024);
  });
});
