import { describe, expect } from 'vitest';
import { AUTH } from '../support/auth.js';
import { gatewayOverUpstream, test } from '../support/fixtures.js';
import type { TestGateway } from '../support/gateway.js';
import { captureLogs } from '../support/logs.js';

/** Errors about the request as a whole carry stable codes too, and nothing of the raw body. */
const it = gatewayOverUpstream();

const post = (gateway: TestGateway, body: string, headers: Record<string, string> = {}) =>
  fetch(gateway.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
    body,
  });

describe('request errors', () => {
  it('variables that do not fit their types are BAD_USER_INPUT, HTTP 400', async ({ gateway, upstream }) => {
    const response = await post(
      gateway,
      JSON.stringify({ query: 'query ($n: Int!) { apiKeys(first: $n) { nodes { id } } }', variables: { n: 'x' } }),
      AUTH,
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      errors: [
        {
          message: 'Variable "$n" got invalid value "x"; Expected type Int; Int cannot represent non-integer value: "x"',
          locations: [{ line: 1, column: 8 }],
          extensions: { code: 'BAD_USER_INPUT' },
        },
      ],
    });
    expect(upstream.requests).toEqual([]);
  });

  it('a body that is not JSON is BAD_REQUEST, HTTP 400, without quoting the body back', async ({ gateway }) => {
    const response = await post(gateway, '{"query": "secret-part');
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      errors: [
        {
          message: 'POST body sent invalid JSON.',
          extensions: {
            code: 'BAD_REQUEST',
            originalError: { name: 'SyntaxError', message: 'The body is not valid JSON.' },
          },
        },
      ],
    });
  });

  it('a GET without the CSRF header is CSRF_HEADER_REQUIRED, HTTP 403', async ({ gateway }) => {
    const response = await fetch(`${gateway.url}?query=${encodeURIComponent('{ __typename }')}`);
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      errors: [{ message: 'Required CSRF header(s) not present', extensions: { code: 'CSRF_HEADER_REQUIRED' } }],
    });
  });
});

describe('choosing an operation by name', () => {
  const document = 'query Names { __typename } query Keys { apiKeys(first: 1) { nodes { id } } } query Other { __typename }';
  const run = async (gateway: TestGateway, operationName?: string) => {
    const response = await post(gateway, JSON.stringify({ query: document, operationName }), AUTH);
    return { status: response.status, body: await response.json() };
  };
  const typename = { status: 200, body: { data: { __typename: 'Query' } } };
  const keys = { status: 200, body: { data: { apiKeys: { nodes: [] } } } };

  // @envelop/graphql-jit caches its compiled function by document alone (src/plugins/use-jit.ts).
  it('runs the operation each request names, whichever of the document ran first', async ({ gateway, upstream }) => {
    const answers = [];
    for (const name of ['Names', 'Keys', 'Other', 'Keys', 'Names']) answers.push(await run(gateway, name));
    expect(answers).toEqual([typename, keys, typename, keys, typename]);
    expect(upstream.requests.map((r) => `${r.method} ${r.path}?limit=${r.query.limit}`)).toEqual([
      'GET /v2/api_keys?limit=1',
      'GET /v2/api_keys?limit=1',
    ]);
  });

  it('refuses a name the document lacks before anything runs, and serves the next request by its name', async ({ gateway }) => {
    expect(await run(gateway, 'Missing')).toEqual({
      status: 400,
      body: {
        errors: [{ message: 'Could not determine what operation to execute.', extensions: { code: 'OPERATION_RESOLUTION_FAILURE' } }],
      },
    });
    expect(await run(gateway, 'Keys')).toEqual(keys);
  });

  test('a batch holding null, and a null initialCount, are the caller’s mistakes: BAD_REQUEST and BAD_USER_INPUT, logged at info', async ({
    start,
  }) => {
    const logs = captureLogs('info');
    const upstream = await start.upstream();
    const gateway = await start.gateway({ upstreamUrl: new URL(upstream.url), logger: logs.logger });
    const batch = await post(gateway, JSON.stringify([{ query: '{ __typename }' }, null]));
    expect(await batch.json()).toEqual([
      { data: { __typename: 'Query' } },
      { errors: [{ message: 'Expected params to be an object but given null.', extensions: { code: 'BAD_REQUEST' } }] },
    ]);
    const streamed = await fetch(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'multipart/mixed', ...AUTH },
      body: JSON.stringify({
        query: 'query ($n: Int) { apiKeys(first: 3) { edges @stream(initialCount: $n) { cursor } } }',
        variables: { n: null },
      }),
    });
    expect(await streamed.text()).toContain(
      '{"errors":[{"message":"The initialCount of @stream must be a number: $n is null.","extensions":{"code":"BAD_USER_INPUT"}}]}',
    );
    expect(upstream.requests).toEqual([]);
    expect(logs.lines('graphql request').map(({ level, errorCodes }) => [level, errorCodes])).toEqual([
      [30, []],
      [30, ['BAD_REQUEST']],
      [30, ['BAD_USER_INPUT']],
    ]);
  });
});
