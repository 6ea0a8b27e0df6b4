import { describe, expect } from 'vitest';
import { CONNECTION_CLOSE_REASONS, type ConnectionCloseReason } from '../../src/observability/metrics.js';
import { AUTH } from '../support/auth.js';
import { gatewayOverUpstream } from '../support/fixtures.js';
import { metricLines, type TestGateway } from '../support/gateway.js';
import { allParts, merged } from '../support/incremental.js';
import { openSocket } from '../support/raw-http.js';
import { envelope } from '../support/recording-upstream.js';
import { apiKeyList, apiKeys } from '../support/records.js';

/** How long a client may hold a socket, and how many it may hold, over raw TCP on loopback. */
const it = gatewayOverUpstream(undefined, {
  keepAliveTimeoutMs: 300,
  headersTimeoutMs: 500,
  requestTimeoutMs: 1_000,
  maxConnections: 3,
  maxBodyBytes: 1_000,
  sendTimeoutMs: 500,
});

const open = (gateway: TestGateway) => openSocket(gateway.url);

const REQUEST = 'POST /graphql HTTP/1.1\r\nHost: gw\r\ncontent-type: application/json\r\n';
const BODY = '{"query":"{ __typename }"}';

describe('connections', () => {
  it('a connection that never sends a request is closed after HEADERS_TIMEOUT_MS', async ({ gateway }) => {
    const { closed } = await open(gateway);
    const after = await closed;
    expect(after).toBeGreaterThanOrEqual(450);
    expect(after).toBeLessThan(5_000);
  });

  it('an idle keep-alive connection is closed after KEEP_ALIVE_TIMEOUT_MS', async ({ gateway }) => {
    const connection = await open(gateway);
    connection.socket.write(`${REQUEST}content-length: ${BODY.length}\r\n\r\n${BODY}`);
    const after = await connection.closed;
    expect(connection.received()).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\{"data":\{"__typename":"Query"\}\}$/);
    expect(after).toBeLessThan(5_000);
  });

  it('a body that trickles in slower than REQUEST_TIMEOUT_MS is answered 408 and closed', async ({ gateway }) => {
    const connection = await open(gateway);
    connection.socket.write(`${REQUEST}content-length: ${BODY.length}\r\n\r\n${BODY.slice(0, 5)}`);
    const after = await connection.closed;
    expect(connection.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(after).toBeLessThan(5_000);
  });

  it('Expect: 100-continue with an oversized Content-Length gets 413 without a 100 Continue first', async ({ gateway }) => {
    const connection = await open(gateway);
    connection.socket.write(`${REQUEST}content-length: 5000\r\nexpect: 100-continue\r\n\r\n`);
    await connection.closed;
    expect(connection.received()).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n/);
    expect(connection.received()).not.toContain('100 Continue');
    expect(connection.received()).toContain('"code":"PAYLOAD_TOO_LARGE"');
  });

  it('a refused body that stops coming is read until REQUEST_TIMEOUT_MS, then its connection is closed', async ({ gateway }) => {
    const connection = await open(gateway);
    connection.socket.write(`${REQUEST}content-length: 5000\r\n\r\n${'x'.repeat(2000)}`);
    // The 413 is out at once; the connection waits for the rest of the body, which never comes.
    await expect.poll(() => connection.received()).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n[\s\S]*"code":"PAYLOAD_TOO_LARGE"/);
    expect(connection.socket.readyState).toBe('open');
    await connection.closed;
  });

  it('Expect: 100-continue within the limit gets 100 Continue, then the answer', async ({ gateway }) => {
    const connection = await open(gateway);
    connection.socket.write(`${REQUEST}content-length: ${BODY.length}\r\nexpect: 100-continue\r\nconnection: close\r\n\r\n`);
    await expect.poll(() => connection.received()).toBe('HTTP/1.1 100 Continue\r\n\r\n');
    connection.socket.write(BODY);
    await connection.closed;
    expect(connection.received()).toMatch(/\{"data":\{"__typename":"Query"\}\}$/);
  });
});

describe('connections to the metrics port (METRICS_PORT) have the same bounds', () => {
  const openMetrics = (gateway: TestGateway) => openSocket(gateway.metricsUrl);

  it('a connection that sends part of its headers and stops is closed after HEADERS_TIMEOUT_MS', async ({ gateway }) => {
    const connection = await openMetrics(gateway);
    connection.socket.write('GET /metrics HTTP/1.1\r\nHost: metrics\r\n');
    const after = await connection.closed;
    expect(connection.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(after).toBeGreaterThanOrEqual(450);
    expect(after).toBeLessThan(5_000);
  });

  it('an idle keep-alive connection is closed after KEEP_ALIVE_TIMEOUT_MS', async ({ gateway }) => {
    const connection = await openMetrics(gateway);
    connection.socket.write('GET /metrics HTTP/1.1\r\nHost: metrics\r\n\r\n');
    const after = await connection.closed;
    expect(connection.received()).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*gateway_graphql_requests_total/);
    expect(after).toBeLessThan(5_000);
  });
});

describe('MAX_CONNECTIONS', () => {
  // Each server counts its own: the GraphQL port, and the metrics port, which listens on HOST too.
  it.for(['url', 'metricsUrl'] as const)(
    'a connection past MAX_CONNECTIONS to the gateway’s %s is closed at once',
    async (port, { gateway }) => {
      const connect = () => openSocket(gateway[port]);
      const held = await Promise.all([connect(), connect(), connect()]);
      const extra = await connect();
      await extra.closed;
      // Closed for the cap, not by the headers timeout: the three held before it are still open.
      expect(held.map((connection) => connection.socket.readyState)).toEqual(['open', 'open', 'open']);
      expect(extra.received()).toBe('');
      // Closed before the next test, which would otherwise find the cap still taken.
      for (const connection of held) connection.socket.destroy();
      await Promise.all(held.map((connection) => connection.closed));
    },
  );
});

/**
 * Names of 160 KiB: one upstream page of 25 keys is 4 MiB, and four aliases of it (one upstream
 * call, shared) make an answer of 100 names, 16 MB, far more than the kernel's socket buffers take
 * from a client that reads nothing (about 4 MB on loopback): the rest stays in the gateway's memory.
 */
const NAME_BYTES = 160 * 1024;
const LONG_NAMES = () => ({ body: envelope(apiKeys(25, 1, { name: 'x'.repeat(NAME_BYTES) })) });
const fourTimes = (selection: string) => `{ ${[0, 1, 2, 3].map((n) => `k${n}: apiKeys(first: 25) ${selection}`).join(' ')} }`;
const LARGE_ANSWER = fourTimes('{ nodes { name } }');
const LARGE_STREAM = fourTimes('{ edges @stream(initialCount: 0) { node { name } } }');
/** Less than the 100 names of one large answer: what a client that was cut off received. */
const CUT_OFF = 100 * NAME_BYTES;

/** A POST of `query` with the caller's token, as raw HTTP. */
function post(query: string, accept = 'application/json') {
  const body = JSON.stringify({ query });
  return `${REQUEST}authorization: ${AUTH.authorization}\r\naccept: ${accept}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

type Closed = Record<ConnectionCloseReason, number>;

/** gateway_http_connections_closed_total, by reason (0 for a reason it does not show). */
async function closedConnections(gateway: TestGateway): Promise<Closed> {
  const lines = await metricLines(gateway, 'gateway_http_connections_closed_total{');
  const shown = new Map(lines.map((line) => [/reason="(\w+)"/.exec(line)?.[1], Number(line.split(' ').at(-1))]));
  return Object.fromEntries(CONNECTION_CLOSE_REASONS.map((reason) => [reason, shown.get(reason) ?? 0])) as Closed;
}

/** A client that asks and then reads nothing: its socket stops reading from the kernel. */
async function neverReading(gateway: TestGateway, request: string) {
  const connection = await open(gateway);
  connection.socket.pause();
  connection.socket.write(request);
  return connection;
}

describe('SEND_TIMEOUT_MS: a client that takes none of its answer', () => {
  it.for([
    ['a large answer', LARGE_ANSWER, 'application/json'],
    ['a large stream (@stream, multipart/mixed)', LARGE_STREAM, 'multipart/mixed'],
  ])('holding %s is closed and counted', async ([, query, accept], { gateway, upstream }) => {
    upstream.answer(LONG_NAMES);
    const before = await closedConnections(gateway);
    const connection = await neverReading(gateway, post(query!, accept));
    await expect.poll(() => closedConnections(gateway), { timeout: 15_000 }).toEqual({ ...before, send_timeout: before.send_timeout + 1 });
    // Reset under the client: what it can still read is the start of the answer, never all of it.
    connection.socket.resume();
    await connection.closed;
    expect(connection.received().length).toBeLessThan(CUT_OFF);
  });

  it('is told apart from a client reading a stream whose parts wait on the upstream longer than SEND_TIMEOUT_MS', async ({
    gateway,
    upstream,
  }) => {
    const list = apiKeyList(100);
    upstream.answer(list);
    const query = '{ apiKeys(first: 100) { edges { cursor node { id name } } } }';
    const plain = await gateway.graphql(query, { headers: AUTH });
    // Each page after the first comes three send timeouts later: the gateway, not the client, is waiting.
    upstream.answer((request) => ({ ...list(request), delayMs: request.query.cursor === undefined ? 0 : 1_500 }));
    const before = await closedConnections(gateway);
    const response = await fetch(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'multipart/mixed', ...AUTH },
      body: JSON.stringify({ query: query.replace('edges', 'edges @stream(initialCount: 0)') }),
    });
    const parts = await allParts(response);
    expect(merged(parts)).toEqual(plain.body);
    expect(parts.length).toBeGreaterThan(4);
    expect(await closedConnections(gateway)).toEqual(before);
  });
});

// The default SEND_TIMEOUT_MS (30 s), so that only MAX_UNREAD_BYTES can close the connection here.
const pipelining = gatewayOverUpstream(LONG_NAMES);

describe('MAX_UNREAD_BYTES: a client that pipelines requests and reads none of the answers', () => {
  pipelining('is closed and counted when a second answer finds the first still unread', async ({ gateway }) => {
    const before = await closedConnections(gateway);
    // Node runs pipelined requests at once and holds each answer until the ones before it are taken.
    const connection = await neverReading(gateway, post(LARGE_ANSWER).repeat(2));
    await expect.poll(() => closedConnections(gateway), { timeout: 15_000 }).toEqual({ ...before, unread_bytes: before.unread_bytes + 1 });
    connection.socket.resume();
    await connection.closed;
    expect(connection.received().length).toBeLessThan(CUT_OFF);
  });

  pipelining('leaves a client that reads its pipelined answers alone', async ({ gateway }) => {
    const before = await closedConnections(gateway);
    const connection = await open(gateway);
    connection.socket.write(post('{ __typename }').repeat(20) + post('{ __typename }').replace('\r\n', '\r\nconnection: close\r\n'));
    await connection.closed;
    expect(connection.received().match(/\{"data":\{"__typename":"Query"\}\}/g)).toHaveLength(21);
    expect(await closedConnections(gateway)).toEqual(before);
  });
});
