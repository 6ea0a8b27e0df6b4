import { request } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect } from 'vitest';
import { AUTH } from '../support/auth.js';
import { type ChildGateway, spawnGateway } from '../support/child-gateway.js';
import { test as it } from '../support/fixtures.js';
import { envelope, type RecordingUpstream } from '../support/recording-upstream.js';

const KEYS = JSON.stringify({ query: 'query Keys { apiKeys(first: 1) { edges { node { id } } } }' });
const headers = { 'content-type': 'application/json', ...AUTH };

interface OtlpTraces {
  resourceSpans: Array<{
    resource: { attributes: unknown[] };
    scopeSpans: Array<{ spans: Array<{ name: string; traceId: string; spanId: string }> }>;
  }>;
}

// The child process outlives a failed test otherwise; the upstreams are closed by the start fixture.
let gateway: ChildGateway | undefined;
afterEach(() => {
  if (gateway?.child.exitCode === null) gateway.child.kill('SIGKILL');
  gateway = undefined;
});

/** What a new TCP connection to the port meets: `connected`, or the error code. */
function connectionTo(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/** POSTs the query on a connection of its own (no keep-alive agent) and returns the parsed body. */
function postOnNewConnection(port: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, path: '/graphql', method: 'POST', headers, agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve(JSON.parse(text)));
    });
    outgoing.once('error', reject);
    outgoing.end(KEYS);
  });
}

/**
 * Sends `signal` to `gateway` while a request is at the upstream, and checks the drain: no new
 * connection is taken, the request in flight is answered (its connection closed), and the process
 * exits 0.
 */
async function drainsOn(signal: NodeJS.Signals, gateway: ChildGateway, upstream: RecordingUpstream): Promise<void> {
  const answer = fetch(`http://127.0.0.1:${gateway.port}/graphql`, { method: 'POST', headers, body: KEYS });
  await untilUpstreamReceived(upstream, 1);
  gateway.child.kill(signal);
  await gateway.waitFor('shutting down: no new connections, finishing requests in flight');
  expect(await connectionTo(gateway.port)).toBe('ECONNREFUSED');
  const response = await answer;
  expect([response.status, response.headers.get('connection'), await response.json()]).toEqual([
    200,
    'close',
    { data: { apiKeys: { edges: [] } } },
  ]);
  expect(await gateway.exited).toEqual({ code: 0, signal: null });
}

async function untilUpstreamReceived(upstream: RecordingUpstream, count: number): Promise<void> {
  while (upstream.requests.length < count) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('graceful shutdown', () => {
  it('on SIGTERM stops accepting, finishes the request in flight, sends its spans, then exits 0', async ({ start }) => {
    const upstream = await start.upstream(() => ({ delayMs: 800, body: envelope([]) }));
    const collector = await start.upstream(() => ({ body: {} }));
    gateway = await spawnGateway({
      UPSTREAM_URL: upstream.url,
      SHUTDOWN_TIMEOUT_MS: '5000',
      OTEL_EXPORTER_OTLP_ENDPOINT: new URL(collector.url).origin,
    });
    await drainsOn('SIGTERM', gateway, upstream);
    expect(gateway.lines.map((line) => [line.msg, line.inFlight ?? line.outcome ?? null])).toEqual([
      ['GraphQL gateway listening', null],
      ['shutting down: no new connections, finishing requests in flight', 1],
      ['graphql request', 'ok'],
      ['stopped', null],
    ]);

    // The spans buffered for export were sent before the exit, over OTLP/HTTP (JSON).
    const exported = collector.requests.filter((request) => request.method === 'POST' && request.path === '/v1/traces');
    const spans = exported.flatMap((request) =>
      (request.body as OtlpTraces).resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)),
    );
    expect(spans.map((span) => span.name).sort()).toEqual(['GET /api_keys', 'query Keys']);
    const call = spans.find((span) => span.name === 'GET /api_keys')!;
    expect(upstream.requests[0]!.headers.traceparent).toBe(`00-${call.traceId}-${call.spanId}-01`);
    expect((exported[0]!.body as OtlpTraces).resourceSpans[0]!.resource.attributes).toContainEqual({
      key: 'service.name',
      value: { stringValue: 'vms-graphql-gateway' },
    });
  });

  it('cuts what is still running after SHUTDOWN_TIMEOUT_MS and still exits 0', async ({ start }) => {
    const upstream = await start.upstream(() => ({ delayMs: 10_000, body: envelope([]) }));
    gateway = await spawnGateway({ UPSTREAM_URL: upstream.url, SHUTDOWN_TIMEOUT_MS: '200' });
    const answer = fetch(`http://127.0.0.1:${gateway.port}/graphql`, { method: 'POST', headers, body: KEYS }).then(
      (response) => response.status,
      (error: Error) => error.name,
    );
    await untilUpstreamReceived(upstream, 1);

    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    expect(await answer).toBe('TypeError');
    // Without OTEL_EXPORTER_OTLP_ENDPOINT nothing is traced.
    expect(upstream.requests[0]!.headers.traceparent).toBeUndefined();
    expect(
      gateway.lines.find((line) => line.msg === 'shutdown timeout: connections with requests still in flight were closed'),
    ).toMatchObject({ level: 40, connections: 1 });
  });
});

describe('SIGHUP, the signal of a terminal that closed', () => {
  it('drains as SIGTERM does: logs the signal, finishes the request in flight, exits 0', async ({ start }) => {
    const upstream = await start.upstream(() => ({ delayMs: 800, body: envelope([]) }));
    gateway = await spawnGateway({ UPSTREAM_URL: upstream.url, SHUTDOWN_TIMEOUT_MS: '5000' });
    await drainsOn('SIGHUP', gateway, upstream);
    expect(gateway.lines.map((line) => [line.msg, line.signal ?? null, line.inFlight ?? line.outcome ?? null])).toEqual([
      ['GraphQL gateway listening', null, null],
      ['shutting down: no new connections, finishing requests in flight', 'SIGHUP', 1],
      ['graphql request', null, 'ok'],
      ['stopped', null, null],
    ]);
  });

  it('with WORKERS=2, a hangup of the whole process group stops each worker through the primary, and exits 0', async ({ start }) => {
    const upstream = await start.upstream(() => ({ body: envelope([]) }));
    gateway = await spawnGateway({ UPSTREAM_URL: upstream.url, WORKERS: '2' }, { processGroup: true });
    for (let i = 0; i < 2; i++) expect(await postOnNewConnection(gateway.port)).toEqual({ data: { apiKeys: { edges: [] } } });

    // As the terminal does: to the primary and both workers at once.
    process.kill(-gateway.child.pid!, 'SIGHUP');
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    const said = (msg: string) => gateway!.lines.filter((line) => line.msg === msg);
    expect(said('shutting down the workers').map((line) => [line.signal, line.workers])).toEqual([['SIGHUP', 2]]);
    // Each worker drained on the primary's SIGTERM; none died of the hangup itself, so none was replaced.
    expect(
      said('shutting down: no new connections, finishing requests in flight')
        .map((line) => [line.worker, line.signal])
        .sort(),
    ).toEqual([
      [1, 'SIGTERM'],
      [2, 'SIGTERM'],
    ]);
    expect(
      said('stopped')
        .map((line) => line.worker)
        .sort(),
    ).toEqual([1, 2]);
    expect(said('worker exited; starting a replacement')).toEqual([]);
  });
});

describe('a gateway whose stdout reader has gone (npm start | head)', () => {
  // Outside production the start-up text is written by console.log and the first log line by pino
  // only on the signal: that line was still being written, to a pipe nobody read, when the process
  // exited, and pino's flush on exit retried it for ever.
  it.for(['SIGTERM', 'SIGINT', 'SIGHUP'] as const)('still exits 0 on %s', async (signal, { start }) => {
    const upstream = await start.upstream(() => ({ body: envelope([]) }));
    gateway = await spawnGateway({ NODE_ENV: 'development', UPSTREAM_URL: upstream.url });
    // The reader goes away, as head does after its lines: the gateway's stdout is a pipe without one.
    gateway.child.stdout!.destroy();
    gateway.child.kill(signal);
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
  });
});

describe('WORKERS=2', () => {
  it('serves from two worker processes on one port and stops them all on SIGTERM', async ({ start }) => {
    const upstream = await start.upstream(() => ({ body: envelope([]) }));
    gateway = await spawnGateway({ UPSTREAM_URL: upstream.url, WORKERS: '2', GATEWAY_REVISION: '4f1e2d3' });
    expect(gateway.lines[0]).toMatchObject({ msg: 'GraphQL gateway listening', workers: 2 });
    // The primary deals new connections out in turn, so four fresh ones reach both workers.
    for (let i = 0; i < 4; i++) expect(await postOnNewConnection(gateway.port)).toEqual({ data: { apiKeys: { edges: [] } } });
    await gateway.waitFor('graphql request', 4);
    expect(new Set(gateway.lines.filter((line) => line.msg === 'graphql request').map((line) => line.worker))).toEqual(new Set([1, 2]));
    // Whichever worker answers the scrape, it reports the requests of both.
    const metrics = await (await fetch(`http://127.0.0.1:${gateway.metricsPort}/metrics`)).text();
    expect(metrics.split('\n').filter((line) => /^gateway_(graphql|upstream)_requests_total/.test(line))).toEqual([
      'gateway_graphql_requests_total{operation_name="Keys",operation_type="query",outcome="ok"} 4',
      'gateway_upstream_requests_total{method="GET",route="/api_keys",status_class="2xx"} 4',
    ]);
    // One build, whichever number of workers runs it.
    expect(metrics).toMatch(/^gateway_build_info\{[^}]*revision="4f1e2d3"[^}]*\} 1$/m);

    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    expect(
      gateway.lines
        .filter((line) => line.msg === 'stopped')
        .map((line) => line.worker)
        .sort(),
    ).toEqual([1, 2]);
  });
});
