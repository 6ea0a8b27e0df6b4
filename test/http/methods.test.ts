import { describe, expect } from 'vitest';
import { AUTH } from '../support/auth.js';
import { gatewayOverUpstream, test } from '../support/fixtures.js';
import { BROWSER, graphqlBody, type RawAnswer, type RawRequest, rawHttp } from '../support/raw-http.js';
import { envelope } from '../support/recording-upstream.js';
import { apiKeyRecord } from '../support/records.js';

/**
 * The methods of /graphql as docs/clients.md (section GraphQL over HTTP) states them: a method the
 * endpoint does not serve is 405 with `Allow` whatever comes with it, OPTIONS carries `Allow`, and
 * HEAD answers what GET would, without the body.
 */
const ALLOW = 'GET, HEAD, POST, OPTIONS';
const it = gatewayOverUpstream(() => ({ body: envelope([apiKeyRecord(1)]) }), { graphiql: true });

const json = (answer: RawAnswer) => JSON.parse(answer.body.toString('utf8')) as unknown;

describe('a method the endpoint does not serve', () => {
  it.for(['DELETE', 'PUT', 'PATCH'])(
    '%s is 405 with Allow, bare, with a token, with a JSON body or with what nothing reads, and nothing goes upstream',
    async (method, { gateway, upstream }) => {
      const requests: RawRequest[] = [
        {},
        { headers: AUTH },
        { headers: { 'content-type': 'application/json' }, body: graphqlBody('{ apiKeys { nodes { id } } }') },
        { headers: { 'content-type': 'text/plain', accept: 'image/png' }, body: 'x' },
      ];
      for (const request of requests) {
        const answer = await rawHttp(gateway.url, { method, ...request });
        expect([answer.status, answer.headers.allow, answer.headers['content-type'], json(answer)]).toEqual([
          405,
          ALLOW,
          'application/json; charset=utf-8',
          { errors: [{ message: `The GraphQL endpoint serves ${ALLOW}, not ${method}.`, extensions: { code: 'BAD_REQUEST' } }] },
        ]);
      }
      expect(upstream.requests).toEqual([]);
    },
  );
});

describe('OPTIONS', () => {
  it('without an Origin is 204 with Allow and no body', async ({ gateway }) => {
    const answer = await rawHttp(gateway.url, { method: 'OPTIONS' });
    expect([answer.status, answer.headers.allow, answer.body.length]).toEqual([204, ALLOW, 0]);
  });

  test('a preflight from a listed origin carries Allow beside the CORS headers', async ({ start }) => {
    const upstream = await start.upstream();
    const gateway = await start.gateway({ upstreamUrl: new URL(upstream.url), corsOrigins: ['https://app.example.com'] });
    const answer = await rawHttp(gateway.url, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
    });
    expect([answer.status, answer.headers.allow, answer.headers['access-control-allow-origin']]).toEqual([
      204,
      ALLOW,
      'https://app.example.com',
    ]);
    const bare = await rawHttp(gateway.url, { method: 'OPTIONS' });
    expect([bare.status, bare.headers.allow]).toEqual([204, ALLOW]);
  });
});

describe('HEAD answers what GET would, without the body', () => {
  /** Headers whose values differ between two answers by nature, and the framing of a body (Node sends none for HEAD). */
  const comparable = ({ status, headers }: RawAnswer) => {
    const { date: _date, 'x-request-id': _id, 'transfer-encoding': _framing, ...rest } = headers;
    return { status, headers: rest };
  };

  it.for<[string, string, Record<string, string>]>([
    ["GraphiQL, for a browser's Accept", '/graphql', BROWSER],
    ['GraphiQL, gzipped', '/graphql', { ...BROWSER, 'accept-encoding': 'gzip' }],
    [
      'a query with a token',
      '/graphql?query=%7B%20apiKeys%20%7B%20nodes%20%7B%20id%20%7D%20%7D%20%7D',
      { accept: 'application/json', ...AUTH },
    ],
    ['a GET without the CSRF header (403)', '/graphql?query=%7B__typename%7D', { accept: 'application/json' }],
    ['readiness', '/ready', {}],
    ['health', '/health', {}],
    ['a path that is not served (404)', '/nothing', {}],
  ])('%s', async ([_, path, headers], { gateway }) => {
    const url = new URL(path, gateway.url).href;
    const get = await rawHttp(url, { headers });
    const head = await rawHttp(url, { method: 'HEAD', headers });
    expect(comparable(head)).toEqual(comparable(get));
    expect(head.body.length).toBe(0);
    if (path === '/graphql') expect([get.headers['content-type'], get.body.length > 0]).toEqual(['text/html; charset=utf-8', true]);
  });
});
