import { brotliCompressSync, deflateSync, gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect } from 'vitest';
import { defaultSettings } from '../../src/config/settings.js';
import { AUTH } from '../support/auth.js';
import { gatewayOverUpstream } from '../support/fixtures.js';
import type { TestGateway } from '../support/gateway.js';
import { graphqlBody, openSocket, rawHttp } from '../support/raw-http.js';
import { envelope } from '../support/recording-upstream.js';
import { AUDIT_FIELDS, apiKeys } from '../support/records.js';

/** Response compression over real HTTP: above the threshold, for callers that accept gzip. */
const keys = apiKeys(25);
const bigQuery = '{ apiKeys(first: 25) { nodes { id name type permissions createdBy createdTime updatedBy updatedTime } } }';
const bigData = {
  data: { apiKeys: { nodes: keys.map((k) => ({ id: k.id, name: k.name, type: 'api', permissions: k.permissions, ...AUDIT_FIELDS })) } },
};
const DEFAULT_COMPRESSION_MIN_BYTES = defaultSettings().compressionMinBytes;
const smallQuery = '{ apiKeys(first: 1) { nodes { id } } }';

const it = gatewayOverUpstream((request) => ({ body: envelope(keys.slice(0, Number(request.query.limit))) }));

const ask = (gateway: TestGateway, query: string, acceptEncoding?: string) =>
  rawHttp(gateway.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...AUTH,
      ...(acceptEncoding ? { 'accept-encoding': acceptEncoding } : {}),
    },
    body: graphqlBody(query),
  });

describe('compression', () => {
  it('gzips an answer above the threshold, and it decodes to exactly the uncompressed answer', async ({ gateway }) => {
    const [plain, zipped] = await Promise.all([ask(gateway, bigQuery), ask(gateway, bigQuery, 'gzip, deflate, br, zstd')]);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThanOrEqual(DEFAULT_COMPRESSION_MIN_BYTES);
    expect(JSON.parse(plain.body.toString())).toEqual(bigData);

    expect(zipped.status).toBe(200);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toMatch(/\bAccept-Encoding\b/);
    expect(Number(zipped.headers['content-length'])).toBe(zipped.body.length);
    expect(zipped.body.length).toBeLessThan(plain.body.length / 3);
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
  });

  it('leaves an answer under the threshold uncompressed', async ({ gateway }) => {
    const answer = await ask(gateway, smallQuery, 'gzip');
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.body.length).toBeLessThan(DEFAULT_COMPRESSION_MIN_BYTES);
    expect(JSON.parse(answer.body.toString())).toEqual({ data: { apiKeys: { nodes: [{ id: 'k1' }] } } });
  });

  it.for(['br', 'gzip;q=0, br', 'identity'])(
    'sends identity to a caller whose Accept-Encoding is %s',
    async (acceptEncoding, { gateway }) => {
      const answer = await ask(gateway, bigQuery, acceptEncoding);
      expect(answer.headers['content-encoding']).toBeUndefined();
      expect(JSON.parse(answer.body.toString())).toEqual(bigData);
    },
  );
});

describe('a compressed request body', () => {
  const refused = {
    errors: [
      {
        message: 'The request body must not be compressed: send it without Content-Encoding.',
        extensions: { code: 'UNSUPPORTED_CONTENT_ENCODING' },
      },
    ],
  };
  const body = graphqlBody(smallQuery);
  const post = (gateway: TestGateway, contentEncoding: string, sent: Buffer | Buffer[]) =>
    rawHttp(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': contentEncoding, ...AUTH },
      body: sent,
    });

  it('is refused 415 UNSUPPORTED_CONTENT_ENCODING before it is read, naming what is accepted, and nothing goes upstream', async ({
    gateway,
    upstream,
  }) => {
    const answer = await post(gateway, 'gzip', gzipSync(body));
    expect(answer.status).toBe(415);
    expect(answer.headers).toMatchObject({
      'accept-encoding': 'identity',
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'private, no-store',
      'x-content-type-options': 'nosniff',
      connection: 'close',
    });
    expect(JSON.parse(answer.body.toString())).toEqual(refused);
    expect(upstream.requests).toEqual([]);
  });

  it.for<[string, Buffer | Buffer[]]>([
    ['deflate', deflateSync(body)],
    ['br', brotliCompressSync(body)],
    ['x-gzip', gzipSync(body)],
    ['GZIP', gzipSync(body)],
    ['identity, gzip', gzipSync(body)],
    ['gzip', [gzipSync(body)]],
  ])('is refused the same with Content-Encoding: %s (declared or chunked)', async ([contentEncoding, sent], { gateway, upstream }) => {
    const answer = await post(gateway, contentEncoding, sent);
    expect([answer.status, JSON.parse(answer.body.toString())]).toEqual([415, refused]);
    expect(upstream.requests).toEqual([]);
  });

  it('is refused before 100 Continue, so a client that waits for it never sends the body', async ({ gateway }) => {
    const connection = await openSocket(gateway.url);
    connection.socket.write(
      'POST /graphql HTTP/1.1\r\nHost: gw\r\ncontent-type: application/json\r\ncontent-encoding: gzip\r\ncontent-length: 100\r\nexpect: 100-continue\r\n\r\n',
    );
    await expect
      .poll(() => connection.received())
      .toMatch(/^HTTP\/1\.1 415 Unsupported Media Type\r\n[\s\S]*"code":"UNSUPPORTED_CONTENT_ENCODING"/);
    connection.socket.destroy();
  });

  it('Content-Encoding: identity, which is no coding, is read as it is', async ({ gateway }) => {
    const answer = await post(gateway, 'identity', Buffer.from(body));
    expect([answer.status, JSON.parse(answer.body.toString())]).toEqual([200, { data: { apiKeys: { nodes: [{ id: 'k1' }] } } }]);
  });
});
