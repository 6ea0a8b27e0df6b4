import { describe, expect } from 'vitest';
import { apqExtensions } from '../support/apq.js';
import { AUTH } from '../support/auth.js';
import { gatewayOverUpstream, test } from '../support/fixtures.js';
import { metricLines, type TestGateway } from '../support/gateway.js';
import { captureLogs, lineBase } from '../support/logs.js';
import { contentTypes, graphqlBody, openSocket, type RawRequest, rawHttp } from '../support/raw-http.js';
import { envelope } from '../support/recording-upstream.js';
import { apiKeyRecord } from '../support/records.js';

/**
 * Every refusal on /graphql, whichever layer wrote it (the HTTP front before Yoga, a plugin, Yoga
 * itself), is an answer an operator can see: one Content-Type, a JSON body with its code, one log
 * line with the status, the code, the calling app and the request id the caller got, and a count
 * in the metrics. docs/clients.md (section GraphQL over HTTP) lists them.
 */
const MAX_BODY_BYTES = 2048;
const logs = captureLogs('info');
const it = gatewayOverUpstream(() => ({ body: envelope([apiKeyRecord(1)]) }), {
  logger: logs.logger,
  maxBodyBytes: MAX_BODY_BYTES,
  maxBatchSize: 2,
});

/** The calling app, which every refusal's log line must name. */
const APP = { 'apollographql-client-name': 'web-app', 'apollographql-client-version': '1.4.2' };
const JSON_POST = { 'content-type': 'application/json', accept: 'application/graphql-response+json' };
const query = (text: string) => `?query=${encodeURIComponent(text)}`;

interface Refusal {
  name: string;
  path?: string;
  request: RawRequest;
  status: number;
  code: string;
}

const REFUSALS: Refusal[] = [
  {
    name: 'a body that is not JSON',
    request: { method: 'POST', headers: { ...JSON_POST, ...AUTH }, body: '{' },
    status: 400,
    code: 'BAD_REQUEST',
  },
  {
    name: 'a document that does not parse',
    request: { method: 'POST', headers: { ...JSON_POST, ...AUTH }, body: graphqlBody('{') },
    status: 400,
    code: 'GRAPHQL_PARSE_FAILED',
  },
  {
    name: 'variables that do not fit their types',
    request: {
      method: 'POST',
      headers: { ...JSON_POST, ...AUTH },
      body: graphqlBody('query ($f: Int) { apiKeys(first: $f) { nodes { id } } }', { f: 'ten' }),
    },
    status: 400,
    code: 'BAD_USER_INPUT',
  },
  {
    name: 'a GET without the CSRF header or a token',
    path: query('{ __typename }'),
    request: { headers: { accept: 'application/json' } },
    status: 403,
    code: 'CSRF_HEADER_REQUIRED',
  },
  {
    name: 'a hash-only persisted query this process does not hold',
    request: {
      method: 'POST',
      headers: { ...JSON_POST, ...AUTH },
      body: JSON.stringify({ extensions: apqExtensions('never sent') }),
    },
    status: 404,
    code: 'PERSISTED_QUERY_NOT_FOUND',
  },
  { name: 'a bare DELETE', request: { method: 'DELETE' }, status: 405, code: 'BAD_REQUEST' },
  {
    name: 'a mutation by GET',
    path: query('mutation { createFolder(input: { name: "x" }) { folder { id } } }'),
    request: { headers: { accept: 'application/json', ...AUTH } },
    status: 405,
    code: 'BAD_REQUEST',
  },
  {
    name: 'an Accept nothing can be written in',
    request: {
      method: 'POST',
      headers: { ...JSON_POST, accept: 'image/png', ...AUTH },
      body: graphqlBody('mutation { createFolder(input: { name: "x" }) { folder { id } } }'),
    },
    status: 406,
    code: 'NOT_ACCEPTABLE',
  },
  {
    name: 'a Content-Length over MAX_BODY_BYTES (the HTTP front)',
    request: { method: 'POST', headers: { ...JSON_POST, ...AUTH }, body: graphqlBody(`{ __typename } # ${'x'.repeat(MAX_BODY_BYTES)}`) },
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
  },
  {
    name: 'a chunked body over MAX_BODY_BYTES (the HTTP front)',
    request: {
      method: 'POST',
      headers: { ...JSON_POST, ...AUTH },
      body: ['{"query":"{ __typename }', ` # ${'x'.repeat(MAX_BODY_BYTES)}"}`],
    },
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
  },
  {
    name: 'a batch over MAX_BATCH_SIZE',
    request: {
      method: 'POST',
      headers: { ...JSON_POST, ...AUTH },
      body: JSON.stringify([{ query: '{ __typename }' }, { query: '{ __typename }' }, { query: '{ __typename }' }]),
    },
    status: 413,
    code: 'BAD_REQUEST',
  },
  {
    name: 'a Host header that makes no URL (the HTTP front; Yoga answered 500 with its stack)',
    request: { method: 'POST', headers: { ...JSON_POST, ...AUTH, host: 'a b' }, body: graphqlBody('{ __typename }') },
    status: 400,
    code: 'BAD_REQUEST',
  },
  {
    name: 'a Host header that holds a path (the HTTP front)',
    request: { method: 'POST', headers: { ...JSON_POST, ...AUTH, host: 'gw/ready?' }, body: graphqlBody('{ __typename }') },
    status: 400,
    code: 'BAD_REQUEST',
  },
  // Each passed the HTTP front's check of the Host header, and Yoga answered it 500 with a stack trace naming the install path.
  ...['x:99999', '%2F', 'a%2Fb', '%00', '%zz', 'a%', '[1.2.3.4]', '1.2.3.4:65536', '%E2%80%8B', '999999999999'].map((host) => ({
    name: `a Host header that Yoga makes no URL of, ${host} (the HTTP front)`,
    request: { method: 'POST', headers: { ...JSON_POST, ...AUTH, host }, body: graphqlBody('{ __typename }') },
    status: 400,
    code: 'BAD_REQUEST',
  })),
  {
    name: 'a compressed body (the HTTP front)',
    request: { method: 'POST', headers: { ...JSON_POST, ...AUTH, 'content-encoding': 'gzip' }, body: 'gzipped' },
    status: 415,
    code: 'UNSUPPORTED_CONTENT_ENCODING',
  },
  {
    name: 'a body in a type nothing reads',
    request: { method: 'POST', headers: { 'content-type': 'application/xml', ...AUTH }, body: '<query/>' },
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
  },
];

/** The type asked for (application/graphql-response+json), or application/json for a refusal whose Accept allows neither. */
const JSON_TYPE = /^application\/(graphql-response\+)?json; charset=utf-8$/;

/** The operations counted with outcome `error`, and with this code. */
async function errorsCounted(gateway: TestGateway, code: string): Promise<{ errors: number; code: number }> {
  const lines = await metricLines(gateway, 'gateway_graphql_');
  const sum = (match: (line: string) => boolean) => lines.filter(match).reduce((total, line) => total + Number(line.split(' ').at(-1)), 0);
  return {
    errors: sum((line) => line.startsWith('gateway_graphql_requests_total{') && line.includes('outcome="error"')),
    code: sum((line) => line.startsWith(`gateway_graphql_errors_total{code="${code}"}`)),
  };
}

describe('every refusal on /graphql', () => {
  it.for(REFUSALS.map((refusal, index) => [refusal.name, refusal, index] as const))(
    '%s: its status, one Content-Type, its code, one log line and a count',
    async ([, { path = '', request, status, code }, index], { gateway, upstream }) => {
      const requestId = `refusal-${index}`;
      const before = await errorsCounted(gateway, code);
      const answer = await rawHttp(gateway.url + path, { ...request, headers: { ...request.headers, ...APP, 'x-request-id': requestId } });
      expect([answer.status, contentTypes(answer), JSON.parse(answer.body.toString('utf8'))]).toEqual([
        status,
        [expect.stringMatching(JSON_TYPE)],
        { errors: [expect.objectContaining({ extensions: expect.objectContaining({ code }) })] },
      ]);
      expect(answer.headers['x-request-id']).toBe(requestId);
      expect(logs.lines('graphql request').filter((line) => line.requestId === requestId)).toEqual([
        {
          ...lineBase(30),
          requestId,
          clientName: 'web-app',
          clientVersion: '1.4.2',
          operationName: null,
          operationType: expect.toBeOneOf([null, 'query', 'mutation']),
          status,
          durationMs: expect.any(Number),
          upstreamCalls: 0,
          // Variables that do not fit are refused as the operation runs: estimated, at no call.
          estimatedCalls: code === 'BAD_USER_INPUT' ? 0 : null,
          outcome: 'error',
          errorCodes: [code],
          msg: 'graphql request',
        },
      ]);
      expect(await errorsCounted(gateway, code)).toEqual({ errors: before.errors + 1, code: before.code + 1 });
      expect(upstream.requests).toEqual([]);
    },
  );
});

test('a rate-limited operation (429) is logged and counted too', async ({ start }) => {
  const upstream = await start.upstream(() => ({ body: envelope([apiKeyRecord(1)]) }));
  const gateway = await start.gateway({
    upstreamUrl: new URL(upstream.url),
    logger: logs.logger,
    rateLimit: 1,
    rateLimitUnit: 'operations',
  });
  const send = (requestId: string) =>
    rawHttp(gateway.url, {
      method: 'POST',
      headers: { ...JSON_POST, ...AUTH, ...APP, 'x-request-id': requestId },
      body: graphqlBody('{ apiKeys { nodes { id } } }'),
    });
  expect((await send('limited-1')).status).toBe(200);
  const refused = await send('limited-2');
  expect([refused.status, contentTypes(refused)]).toEqual([429, [expect.stringMatching(JSON_TYPE)]]);
  expect(logs.lines('graphql request').filter((line) => line.requestId === 'limited-2')).toEqual([
    expect.objectContaining({ level: 30, status: 429, clientName: 'web-app', errorCodes: ['RATE_LIMITED'], outcome: 'error' }),
  ]);
  expect(await errorsCounted(gateway, 'RATE_LIMITED')).toEqual({ errors: 1, code: 1 });
});

describe('a request Yoga could make no URL of', () => {
  /** A raw request line and headers, for what node:http's client will not send (another request target). */
  async function rawRequestLine(
    gateway: TestGateway,
    line: string,
    headers: string,
  ): Promise<{ status: number; head: string; body: string }> {
    const { socket, received, closed } = await openSocket(gateway.url);
    socket.write(`${line}\r\n${headers}Connection: close\r\n\r\n`);
    await closed;
    const [head = '', body = ''] = received().split('\r\n\r\n');
    return { status: Number(head.split(' ')[1]), head, body };
  }

  it.for(['/health', '/ready', '/graphql'])(
    'is a 400 on %s, whatever its Host or request target, never a 500 with a stack',
    async (path, { gateway }) => {
      for (const host of ['x:99999', '%2F', '%00', '[1.2.3.4]', '999999999999']) {
        const answer = await rawHttp(`${gateway.url}${path}`, { headers: { host, 'x-request-id': 'bad-host' } });
        expect([host, answer.status, answer.headers['x-request-id'], JSON.parse(answer.body.toString()).errors[0].extensions.code]).toEqual(
          [host, 400, 'bad-host', 'BAD_REQUEST'],
        );
      }
      for (const target of [`http://elsewhere${path}`, '*']) {
        const answer = await rawRequestLine(gateway, `GET ${target} HTTP/1.1`, 'Host: 127.0.0.1\r\n');
        expect([target, answer.status, JSON.parse(answer.body).errors[0].extensions.code]).toEqual([target, 400, 'BAD_REQUEST']);
      }
    },
  );

  it('an error that escapes Yoga is a JSON 500 that names no file, with the request id, logged and counted', async ({ gateway }) => {
    const yoga = gateway.gateway.yoga;
    // The HTTP front hands each request to its gateway's Yoga: this one fails as no test can make it fail from outside.
    gateway.gateway.yoga = new Proxy(yoga, {
      get: (target, name, receiver) =>
        name === 'handleNodeRequestAndResponse'
          ? () => {
              throw new Error(`broken at ${process.cwd()}/src/somewhere.ts`);
            }
          : Reflect.get(target, name, receiver),
    });
    try {
      const before = await errorsCounted(gateway, 'INTERNAL_SERVER_ERROR');
      const answer = await rawHttp(`${gateway.url}/graphql`, {
        method: 'POST',
        headers: { ...JSON_POST, ...AUTH, ...APP, 'x-request-id': 'escaped-1' },
        body: graphqlBody('{ __typename }'),
      });
      expect([answer.status, contentTypes(answer), answer.headers['x-request-id'], answer.headers['cache-control']]).toEqual([
        500,
        ['application/json; charset=utf-8'],
        'escaped-1',
        'private, no-store',
      ]);
      expect(JSON.parse(answer.body.toString())).toEqual({
        errors: [{ message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } }],
      });
      expect(logs.lines('graphql request').filter((line) => line.requestId === 'escaped-1')).toEqual([
        expect.objectContaining({ level: 50, status: 500, clientName: 'web-app', errorCodes: ['INTERNAL_SERVER_ERROR'], outcome: 'error' }),
      ]);
      expect(JSON.stringify(logs.lines())).not.toContain(process.cwd());
      expect(await errorsCounted(gateway, 'INTERNAL_SERVER_ERROR')).toEqual({ errors: before.errors + 1, code: before.code + 1 });
    } finally {
      gateway.gateway.yoga = yoga;
    }
  });
});
