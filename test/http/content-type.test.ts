import { describe, expect } from 'vitest';
import { AUTH } from '../support/auth.js';
import { gatewayOverUpstream } from '../support/fixtures.js';
import { BROWSER, contentTypes, graphqlBody, rawHttp } from '../support/raw-http.js';
import { envelope } from '../support/recording-upstream.js';
import { apiKeyRecord } from '../support/records.js';

/**
 * Every kind of answer declares its type exactly once: a second Content-Type line (the page's own
 * `Content-Type: text/html` beside `content-type: text/html; charset=utf-8`) reaches fetch as
 * "text/html, text/html; charset=utf-8". The refusals are checked in test/http/refusals.test.ts.
 */
const it = gatewayOverUpstream(() => ({ body: envelope(Array.from({ length: 25 }, (_, i) => apiKeyRecord(i + 1))) }), { graphiql: true });

describe('one Content-Type on every answer', () => {
  it('the GraphiQL page, with and without gzip', async ({ gateway }) => {
    const plain = await rawHttp(gateway.url, { headers: BROWSER });
    const zipped = await rawHttp(gateway.url, { headers: { ...BROWSER, 'accept-encoding': 'gzip' } });
    expect([plain.status, contentTypes(plain), plain.headers['content-encoding']]).toEqual([200, ['text/html; charset=utf-8'], undefined]);
    expect([zipped.status, contentTypes(zipped)]).toEqual([200, ['text/html; charset=utf-8']]);
  });

  it('an asset the page links, with and without gzip', async ({ gateway }) => {
    const page = (await rawHttp(gateway.url, { headers: BROWSER })).body.toString('utf8');
    const script = new URL(/src="(\/graphiql\/[^"]+\.js)"/.exec(page)![1]!, gateway.url).href;
    const plain = await rawHttp(script);
    const zipped = await rawHttp(script, { headers: { 'accept-encoding': 'gzip' } });
    expect([plain.status, contentTypes(plain)]).toEqual([200, ['text/javascript; charset=utf-8']]);
    expect([zipped.status, zipped.headers['content-encoding'], contentTypes(zipped)]).toEqual([
      200,
      'gzip',
      ['text/javascript; charset=utf-8'],
    ]);
  });

  it('a result, small and gzipped, for either JSON type', async ({ gateway }) => {
    const post = (accept: string, first: number) =>
      rawHttp(gateway.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept, 'accept-encoding': 'gzip', ...AUTH },
        body: graphqlBody(`{ apiKeys(first: ${first}) { nodes { id name permissions createdBy createdTime updatedBy updatedTime } } }`),
      });
    const small = await post('application/graphql-response+json', 1);
    const large = await post('application/json', 25);
    expect([small.status, small.headers['content-encoding'], contentTypes(small)]).toEqual([
      200,
      undefined,
      ['application/graphql-response+json; charset=utf-8'],
    ]);
    expect([large.status, large.headers['content-encoding'], contentTypes(large)]).toEqual([
      200,
      'gzip',
      ['application/json; charset=utf-8'],
    ]);
  });

  it('readiness', async ({ gateway }) => {
    const ready = await rawHttp(gateway.url.replace(/\/graphql$/, '/ready'));
    expect([ready.status, contentTypes(ready)]).toEqual([200, ['application/json; charset=utf-8']]);
  });
});
