import { describe, expect } from 'vitest';
import { gatewayOverUpstream } from '../support/fixtures.js';
import type { TestGateway } from '../support/gateway.js';
import { openConnection } from '../support/raw-http.js';

/** How long a client may hold a socket, and how many it may hold, over raw TCP on loopback. */
const it = gatewayOverUpstream(undefined, {
  keepAliveTimeoutMs: 300,
  headersTimeoutMs: 500,
  requestTimeoutMs: 1_000,
  maxConnections: 3,
  maxBodyBytes: 1_000,
});

const open = (gateway: TestGateway) => openConnection(gateway.url);

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
  const openMetrics = (gateway: TestGateway) => openConnection(gateway.metricsUrl);

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
      const connect = () => openConnection(gateway[port]);
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
