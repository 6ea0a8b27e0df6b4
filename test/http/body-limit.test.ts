import { describe, expect } from 'vitest';
import { defaultSettings } from '../../src/config/settings.js';
import { LINGER_MAX_BYTES } from '../../src/server/http-server.js';
import { AUTH } from '../support/auth.js';
import { spawnGateway } from '../support/child-gateway.js';
import { closedWith, gatewayOverUpstream } from '../support/fixtures.js';
import { graphqlBody, openSocket, rawHttp } from '../support/raw-http.js';
import { envelope } from '../support/recording-upstream.js';
import { apiKeyRecord } from '../support/records.js';

/** The body size limit of the http front (src/server/http-server.ts), for declared and for chunked bodies. */
const LIMIT = 2_000;
const headers = { 'content-type': 'application/json', ...AUTH };
const query = '{ apiKeys(first: 1) { nodes { id } } }';
const tooLargeFor = (limit: number) => ({
  errors: [{ message: `The request body is larger than ${limit} bytes.`, extensions: { code: 'PAYLOAD_TOO_LARGE' } }],
});
const tooLarge = tooLargeFor(LIMIT);

/**
 * `gateway` in this process; `child`, at the default MAX_BODY_BYTES, in a process of its own as
 * `npm start` runs it: a client that shares the gateway's event loop never sends while the
 * gateway closes, so what a refused upload does to its client shows only between two processes.
 */
const it = gatewayOverUpstream(() => ({ body: envelope([apiKeyRecord(1)]) }), { maxBodyBytes: LIMIT }).extend(
  'child',
  { scope: 'file' },
  async ({ upstream }, { onCleanup }) => closedWith(onCleanup, await spawnGateway({ UPSTREAM_URL: upstream.url })),
);

/** A GraphQL request padded with an unused variable to exactly `size` bytes. */
function paddedBody(size: number): string {
  const bare = graphqlBody(query, { pad: '' });
  return graphqlBody(query, { pad: 'x'.repeat(size - bare.length) });
}

describe('request body limit', () => {
  it('serves a body of exactly the limit, declared with Content-Length', async ({ gateway, upstream }) => {
    const body = paddedBody(LIMIT);
    expect(body.length).toBe(LIMIT);
    const answer = await rawHttp(gateway.url, { method: 'POST', headers, body });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body.toString())).toEqual({ data: { apiKeys: { nodes: [{ id: 'k1' }] } } });
    expect(upstream.requests.map((r) => [r.method, r.path, r.query])).toEqual([['GET', '/v2/api_keys', { limit: '1' }]]);
  });

  it('answers 413 to a declared Content-Length one byte over the limit, without calling the upstream', async ({ gateway, upstream }) => {
    const answer = await rawHttp(gateway.url, { method: 'POST', headers, body: paddedBody(LIMIT + 1) });
    expect(answer.status).toBe(413);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.headers.connection).toBe('close');
    expect(JSON.parse(answer.body.toString())).toEqual(tooLarge);
    expect(upstream.requests).toEqual([]);
  });

  it('serves a chunked body (no Content-Length) under the limit', async ({ gateway, upstream }) => {
    const body = paddedBody(LIMIT);
    const answer = await rawHttp(gateway.url, {
      method: 'POST',
      headers,
      body: [body.slice(0, 700), body.slice(700, 1500), body.slice(1500)],
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body.toString())).toEqual({ data: { apiKeys: { nodes: [{ id: 'k1' }] } } });
    expect(upstream.requests).toHaveLength(1);
  });

  it('answers 413 to a chunked body once its counted bytes pass the limit', async ({ gateway, upstream }) => {
    const body = paddedBody(LIMIT + 1);
    const answer = await rawHttp(gateway.url, { method: 'POST', headers, body: [body.slice(0, 1000), body.slice(1000)] });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body.toString())).toEqual(tooLarge);
    expect(upstream.requests).toEqual([]);
  });

  it('keeps serving after refusing a body', async ({ gateway }) => {
    await rawHttp(gateway.url, { method: 'POST', headers, body: paddedBody(LIMIT * 4) });
    const answer = await gateway.graphql(query, { headers: AUTH });
    expect(answer.body).toEqual({ data: { apiKeys: { nodes: [{ id: 'k1' }] } } });
  });

  it('answers a request pipelined after a refused body with nothing: the 413 said Connection: close', async ({ gateway, upstream }) => {
    const connection = await openSocket(gateway.url);
    const body = paddedBody(LIMIT + 1);
    const valid = graphqlBody(query);
    const request = (text: string) =>
      `POST /graphql HTTP/1.1\r\nHost: gw\r\ncontent-type: application/json\r\nauthorization: ${AUTH.authorization}\r\ncontent-length: ${text.length}\r\n\r\n${text}`;
    connection.socket.write(request(body) + request(valid));
    await connection.closed;
    expect(connection.received().match(/^HTTP\/1\.1 \d+/gm)).toEqual(['HTTP/1.1 413']);
    expect(upstream.requests).toEqual([]);
  });

  it('cuts a body that goes on past LINGER_MAX_BYTES after its 413', async ({ gateway }) => {
    const connection = await openSocket(gateway.url);
    connection.socket.write('POST /graphql HTTP/1.1\r\nHost: gw\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n');
    const chunk = `10000\r\n${'x'.repeat(0x10000)}\r\n`;
    let sent = 0;
    let open = true;
    void connection.closed.then(() => (open = false));
    // Sends as fast as the socket drains, until the gateway closes it: an endless body.
    while (open && sent <= 4 * LINGER_MAX_BYTES) {
      sent += 0x10000;
      if (!connection.socket.write(chunk)) await new Promise((resolve) => connection.socket.once('drain', resolve).once('close', resolve));
    }
    expect(open).toBe(false);
    expect(connection.received()).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n[\s\S]*"code":"PAYLOAD_TOO_LARGE"/);
    // What the kernels' buffers held when it was cut comes on top of what the gateway read.
    expect(sent).toBeLessThan(LIMIT + 2 * LINGER_MAX_BYTES);
  });
});

describe('a refused upload, to a gateway in its own process', () => {
  const limit = defaultSettings().maxBodyBytes;
  const upload = graphqlBody(query, { pad: 'x'.repeat(5_000_000) });
  /** 5 MB in chunks of 100 kB, as a file is streamed. */
  const chunks = upload.match(/[\s\S]{1,100000}/g)!;
  /** The answer's status and body, and /health's status after it; or the error the client got. */
  type Outcome = [status: number, body: unknown, health: number] | string;
  const read = (status: number, body: string) => [status, JSON.parse(body) as unknown] as const;
  const clients: Array<[string, (url: string) => Promise<readonly [number, unknown]>]> = [
    [
      'fetch (undici), with Content-Length',
      async (url) => {
        const answer = await fetch(url, { method: 'POST', headers, body: upload });
        return read(answer.status, await answer.text());
      },
    ],
    [
      'fetch (undici), a streamed body (chunked)',
      async (url) => {
        const body = new ReadableStream({
          start(controller) {
            for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
            controller.close();
          },
        });
        // undici wants `duplex` for a stream body; Node's RequestInit type does not name it.
        const answer = await fetch(url, { method: 'POST', headers, body, duplex: 'half' } as RequestInit);
        return read(answer.status, await answer.text());
      },
    ],
    [
      'node:http, with Content-Length',
      async (url) => {
        const answer = await rawHttp(url, { method: 'POST', headers, body: upload });
        return read(answer.status, answer.body.toString());
      },
    ],
    [
      'node:http, chunked',
      async (url) => {
        const answer = await rawHttp(url, { method: 'POST', headers, body: chunks });
        return read(answer.status, answer.body.toString());
      },
    ],
    [
      'node:http, Expect: 100-continue, sending without waiting for 100 Continue (as RFC 9110 allows)',
      async (url) => {
        const answer = await rawHttp(url, { method: 'POST', headers: { ...headers, expect: '100-continue' }, body: upload });
        return read(answer.status, answer.body.toString());
      },
    ],
  ];

  it.for(clients)(
    '%s: 30 in a row each read their 413 PAYLOAD_TOO_LARGE, and /health answers between them',
    async ([, send], { child }) => {
      const url = `http://127.0.0.1:${child.port}/graphql`;
      const outcomes: Outcome[] = [];
      for (let i = 0; i < 30; i++) {
        const outcome = await send(url).then(
          (answer): Outcome => [...answer, 0],
          (error: Error & { cause?: { code?: string }; code?: string }) => error.cause?.code ?? error.code ?? error.message,
        );
        if (Array.isArray(outcome)) outcome[2] = (await fetch(`http://127.0.0.1:${child.port}/health`)).status;
        outcomes.push(outcome);
      }
      expect(outcomes).toEqual(Array.from({ length: 30 }, () => [413, tooLargeFor(limit), 200]));
    },
  );
});
