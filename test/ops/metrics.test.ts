import { describe, expect, it } from 'vitest';
import { createMetrics, MAX_CLIENT_LABELS, MAX_OPERATION_NAMES } from '../../src/observability/metrics.js';
import { VERSION } from '../../src/server/build-info.js';
import { AUTH, bearer, TOKEN } from '../support/auth.js';
import { gatewayOverUpstream } from '../support/fixtures.js';
import { metricLines } from '../support/gateway.js';
import { envelope } from '../support/recording-upstream.js';
import { apiKeyRecord } from '../support/records.js';
import { requestSummary } from '../support/summaries.js';

const KEYS = 'query Keys { apiKeys(first: 1) { edges { node { id } } } }';
/** Its id is distinctive, so that the leak check below would find it. */
const KEY = apiKeyRecord(1, { id: 'ak_001' });
/** A caller whose token the upstream refuses. */
const FORGED = bearer('forged');
const RENAME = 'mutation Rename { updateCategory(input: { id: "cat_777", name: "x" }) { category { id } } }';

/** The samples of /metrics (comment lines dropped), without the process metrics. */
function gatewaySamples(text: string): string[] {
  return text.split('\n').filter((line) => line.startsWith('gateway_') && !line.includes('_bucket{'));
}

const metricsTest = gatewayOverUpstream((request) =>
  request.method === 'PATCH'
    ? { status: 404, body: { success: false, result: null, errors: [{ message: 'No such category' }], links: {} } }
    : { body: envelope([KEY]) },
);

describe('GET /metrics', () => {
  const it = metricsTest;
  let text: string;
  let contentType: string | null;

  it.beforeAll(async ({ gateway }) => {
    await gateway.graphql(KEYS, { headers: { ...AUTH, 'x-request-id': 'metrics-req-1' } });
    await gateway.graphql(KEYS, { headers: AUTH });
    await gateway.graphql(RENAME, { headers: AUTH });
    await gateway.graphql('{ __typename }', { headers: AUTH });
    const response = await fetch(gateway.metricsUrl);
    contentType = response.headers.get('content-type');
    text = await response.text();
  });

  it('counts GraphQL requests and upstream calls by their labels, shows each reason for closing a connection, and reads the pool and circuit', () => {
    expect(contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    const samples = gatewaySamples(text).map((line) => line.replace(/_sum(\{.*\}) [\d.e-]+$/, '_sum$1 <seconds>'));
    expect(samples).toEqual([
      'gateway_graphql_requests_total{operation_name="Keys",operation_type="query",outcome="ok"} 2',
      'gateway_graphql_requests_total{operation_name="Rename",operation_type="mutation",outcome="error"} 1',
      'gateway_graphql_requests_total{operation_name="anonymous",operation_type="query",outcome="ok"} 1',
      'gateway_graphql_request_duration_seconds_sum{operation_name="Keys"} <seconds>',
      'gateway_graphql_request_duration_seconds_count{operation_name="Keys"} 2',
      'gateway_graphql_request_duration_seconds_sum{operation_name="Rename"} <seconds>',
      'gateway_graphql_request_duration_seconds_count{operation_name="Rename"} 1',
      'gateway_graphql_request_duration_seconds_sum{operation_name="anonymous"} <seconds>',
      'gateway_graphql_request_duration_seconds_count{operation_name="anonymous"} 1',
      'gateway_graphql_client_requests_total{client_name="none",client_version="none",outcome="ok"} 3',
      'gateway_graphql_client_requests_total{client_name="none",client_version="none",outcome="error"} 1',
      'gateway_graphql_errors_total{code="NOT_FOUND"} 1',
      'gateway_graphql_client_closed_total 0',
      // What each operation that ran used, the input fields of the mutation's literal input too; `{ __typename }` uses nothing.
      'gateway_graphql_field_requests_total{coordinate="ApiKey.id",client="none"} 2',
      'gateway_graphql_field_requests_total{coordinate="ApiKeyConnection.edges",client="none"} 2',
      'gateway_graphql_field_requests_total{coordinate="ApiKeyEdge.node",client="none"} 2',
      'gateway_graphql_field_requests_total{coordinate="Query.apiKeys",client="none"} 2',
      'gateway_graphql_field_requests_total{coordinate="Query.apiKeys(first:)",client="none"} 2',
      'gateway_graphql_field_requests_total{coordinate="Category.id",client="none"} 1',
      'gateway_graphql_field_requests_total{coordinate="Mutation.updateCategory",client="none"} 1',
      'gateway_graphql_field_requests_total{coordinate="Mutation.updateCategory(input:)",client="none"} 1',
      'gateway_graphql_field_requests_total{coordinate="UpdateCategoryInput.id",client="none"} 1',
      'gateway_graphql_field_requests_total{coordinate="UpdateCategoryInput.name",client="none"} 1',
      'gateway_graphql_field_requests_total{coordinate="UpdateCategoryPayload.category",client="none"} 1',
      'gateway_upstream_requests_total{method="GET",route="/api_keys",status_class="2xx"} 2',
      'gateway_upstream_requests_total{method="PATCH",route="/categories/:id",status_class="4xx"} 1',
      'gateway_upstream_request_duration_seconds_sum{method="GET",route="/api_keys",status_class="2xx"} <seconds>',
      'gateway_upstream_request_duration_seconds_count{method="GET",route="/api_keys",status_class="2xx"} 2',
      'gateway_upstream_request_duration_seconds_sum{method="PATCH",route="/categories/:id",status_class="4xx"} <seconds>',
      'gateway_upstream_request_duration_seconds_count{method="PATCH",route="/categories/:id",status_class="4xx"} 1',
      'gateway_http_connections_closed_total{reason="send_timeout"} 0',
      'gateway_http_connections_closed_total{reason="unread_bytes"} 0',
      'gateway_upstream_open_connections 1',
      'gateway_upstream_pending_requests 0',
      'gateway_upstream_circuit_state 0',
      `gateway_build_info{version="${VERSION}",revision="unknown",node="${process.version}"} 1`,
    ]);
  });

  it('has histogram buckets and the process metrics operators expect', () => {
    expect(text).toContain('gateway_graphql_request_duration_seconds_bucket{le="+Inf",operation_name="Keys"} 2');
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds [\d.e-]+/m);
  });

  it('puts no ids, tokens or addresses into labels', ({ upstream }) => {
    for (const leak of ['cat_777', KEY.id, TOKEN, 'metrics-req-1', new URL(upstream.url).host]) expect(text).not.toContain(leak);
  });
});

/** Every read's first attempt is answered 503; a read of two keys, every attempt (UPSTREAM_RETRIES, 2, then it fails). */
const retriesTest = gatewayOverUpstream((request, index) =>
  index === 0 || request.query.limit === '2'
    ? { status: 503, body: { success: false, result: null, errors: [{ message: 'Busy' }], links: {} } }
    : { body: envelope([KEY]) },
);

describe('upstream retries', () => {
  const it = retriesTest;

  it('are counted apart from the calls they belong to, by method and route', async ({ gateway, upstream }) => {
    expect((await gateway.graphql(KEYS, { headers: AUTH })).body).toEqual({ data: { apiKeys: { edges: [{ node: { id: KEY.id } }] } } });
    expect((await gateway.graphql('{ apiKeys(first: 2) { edges { node { id } } } }', { headers: AUTH })).body).toMatchObject({
      errors: [{ extensions: { code: 'UPSTREAM_ERROR' } }],
    });
    expect(upstream.requests.map((request) => request.query.limit)).toEqual(['1', '1', '2', '2', '2']);
    const text = await (await fetch(gateway.metricsUrl)).text();
    expect(text.split('\n').filter((line) => /^gateway_upstream_(requests|retries)_total/.test(line))).toEqual([
      'gateway_upstream_requests_total{method="GET",route="/api_keys",status_class="2xx"} 1',
      'gateway_upstream_requests_total{method="GET",route="/api_keys",status_class="5xx"} 1',
      // Two calls, five attempts: the first call's one retry, the second's two.
      'gateway_upstream_retries_total{method="GET",route="/api_keys"} 3',
    ]);
  });
});

describe('client_name and client_version labels', () => {
  const request = (name: string | undefined, version: string | undefined, vouched = true) =>
    requestSummary({ client: { name, version }, operationName: 'Op', upstreamStatuses: vouched ? [200] : [401] });
  const labelled = async (metrics: ReturnType<typeof createMetrics>) =>
    (await metrics.registry.getSingleMetric('gateway_graphql_client_requests_total')!.get()).values.map(
      (sample) => `${sample.labels.client_name}/${sample.labels.client_version}=${sample.value}`,
    );

  it(`keep the first ${MAX_CLIENT_LABELS} vouched names, and count junk, unvouched and later ones as "other"`, async () => {
    const metrics = createMetrics();
    for (let i = 0; i < MAX_CLIENT_LABELS; i++) metrics.observeRequest(request(`app-${i}`, '1.0'));
    metrics.observeRequest(request('app-late', '1.0'));
    metrics.observeRequest(request('other', '1.0'));
    metrics.observeRequest(request('forged', '1.0', false));
    metrics.observeRequest(request(undefined, undefined));
    const samples = await labelled(metrics);
    expect(samples).toHaveLength(MAX_CLIENT_LABELS + 2);
    expect(samples.slice(-2)).toEqual(['other/other=3', 'none/none=1']);
  });

  it('with METRICS_CLIENT_NAMES keep only the names listed', async () => {
    const metrics = createMetrics({ clientNames: ['web-app'] });
    metrics.observeRequest(request('web-app', '2.0'));
    metrics.observeRequest(request('web-app', undefined));
    metrics.observeRequest(request('admin', '1.0'));
    expect(await labelled(metrics)).toEqual(['web-app/2.0=1', 'web-app/none=1', 'other/other=1']);
  });
});

describe('operation_name label', () => {
  const summary = (operationName: string | undefined) => requestSummary({ operationName });

  it(`keeps the first ${MAX_OPERATION_NAMES} names and counts the rest as "other"`, async () => {
    const metrics = createMetrics();
    for (let i = 0; i <= MAX_OPERATION_NAMES; i++) metrics.observeRequest(summary(`Op${i}`));
    metrics.observeRequest(summary('Op0'));
    const counts = (await metrics.registry.getSingleMetric('gateway_graphql_requests_total')!.get()).values;
    const byName = Object.fromEntries(counts.map((sample) => [sample.labels.operation_name, sample.value]));
    expect(Object.keys(byName)).toHaveLength(MAX_OPERATION_NAMES + 1);
    expect([byName.Op0, byName[`Op${MAX_OPERATION_NAMES - 1}`], byName[`Op${MAX_OPERATION_NAMES}`], byName.other]).toEqual([
      2,
      1,
      undefined,
      1,
    ]);
  });
});

describe('client_name label over HTTP, in production', () => {
  const it = metricsTest;
  const named = (name: string) => ({ ...AUTH, 'apollographql-client-name': name, 'apollographql-client-version': '1.0' });
  /** Sends the first-come names, then the real app, and returns the request counts by client label. */
  const squatted = async (gateway: {
    graphql: (query: string, options: { headers: Record<string, string> }) => Promise<unknown>;
    metricsUrl: string;
  }) => {
    for (let i = 0; i < MAX_CLIENT_LABELS; i++) await gateway.graphql(KEYS, { headers: named(`squatter-${i}`) });
    await gateway.graphql(KEYS, { headers: named('web-app') });
    return (await metricLines(gateway, 'gateway_graphql_client_requests_total')).map((line) =>
      line.replace(/.*client_name="([^"]*)",client_version="([^"]*)",outcome="ok"\} (\d+)$/, '$1/$2=$3'),
    );
  };

  it(`without METRICS_CLIENT_NAMES gives no name a label: ${MAX_CLIENT_LABELS} names sent first with an accepted token take none`, async ({
    start,
    upstream,
  }) => {
    const gateway = await start.gateway({ production: true, upstreamUrl: new URL(upstream.url) });
    expect(await squatted(gateway)).toEqual([`other/other=${MAX_CLIENT_LABELS + 1}`]);
  });

  it('with METRICS_CLIENT_NAMES labels the apps listed, whatever names came first', async ({ start, upstream }) => {
    const gateway = await start.gateway({ production: true, upstreamUrl: new URL(upstream.url), metricsClientNames: ['web-app'] });
    expect(await squatted(gateway)).toEqual([`other/other=${MAX_CLIENT_LABELS}`, 'web-app/1.0=1']);
  });
});

describe('operation_name label over HTTP', () => {
  const it = metricsTest;

  it(`is taken only by operations the upstream accepted the token of: ${MAX_OPERATION_NAMES} junk names without a token leave real ones counted`, async ({
    start,
    upstream,
  }) => {
    const gateway = await start.gateway({ upstreamUrl: new URL(upstream.url) });
    for (let i = 0; i < MAX_OPERATION_NAMES; i++) await gateway.graphql(`query Junk${i} { __typename }`);
    upstream.answer((request) =>
      request.headers.authorization === FORGED.authorization
        ? { status: 401, body: { success: false, result: null, errors: [{ message: 'bad token' }], links: {} } }
        : { body: envelope([]) },
    );
    await gateway.graphql('query Forged { apiKeys(first: 1) { edges { node { id } } } }', { headers: FORGED });
    await gateway.graphql(KEYS, { headers: AUTH });
    const samples = await metricLines(gateway, 'gateway_graphql_requests_total');
    expect(samples).toEqual([
      `gateway_graphql_requests_total{operation_name="other",operation_type="query",outcome="ok"} ${MAX_OPERATION_NAMES}`,
      'gateway_graphql_requests_total{operation_name="other",operation_type="query",outcome="error"} 1',
      'gateway_graphql_requests_total{operation_name="Keys",operation_type="query",outcome="ok"} 1',
    ]);
  });

  it('is not served on the public port', async ({ gateway }) => {
    expect((await fetch(gateway.url.replace(/\/graphql$/, '/metrics'))).status).toBe(404);
  });
});
