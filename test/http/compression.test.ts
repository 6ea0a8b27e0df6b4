import { gunzipSync } from 'node:zlib';
import { describe, expect } from 'vitest';
import { defaultSettings } from '../../src/config/settings.js';
import { AUTH } from '../support/auth.js';
import { gatewayOverUpstream } from '../support/fixtures.js';
import type { RunningGateway } from '../support/gateway.js';
import { graphqlBody, rawHttp } from '../support/raw-http.js';
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

const ask = (gateway: RunningGateway, query: string, acceptEncoding?: string) =>
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
