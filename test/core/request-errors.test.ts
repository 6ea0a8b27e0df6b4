import { describe, expect } from 'vitest';
import { gatewayOverUpstream } from '../support/fixtures.js';
import type { RunningGateway } from '../support/gateway.js';

/** Errors about the request as a whole carry stable codes too, and nothing of the raw body. */
const it = gatewayOverUpstream();

const post = (gateway: RunningGateway, body: string, headers: Record<string, string> = {}) =>
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
      { authorization: 'Bearer t' },
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
