import { describe, expect } from 'vitest';
import { AUTH } from '../support/auth.js';
import { gatewayOverUpstream } from '../support/fixtures.js';
import { graphqlBody, rawHttp } from '../support/raw-http.js';
import { envelope } from '../support/recording-upstream.js';
import { apiKeyRecord } from '../support/records.js';

/** The body size limit of the http front (src/server/http-server.ts), for declared and for chunked bodies. */
const LIMIT = 2_000;
const headers = { 'content-type': 'application/json', ...AUTH };
const query = '{ apiKeys(first: 1) { nodes { id } } }';
const tooLarge = {
  errors: [{ message: `The request body is larger than ${LIMIT} bytes.`, extensions: { code: 'PAYLOAD_TOO_LARGE' } }],
};

const it = gatewayOverUpstream(() => ({ body: envelope([apiKeyRecord(1)]) }), { maxBodyBytes: LIMIT });

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
});
