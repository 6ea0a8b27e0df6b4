import { describe, expect, it } from 'vitest';
import { useAllowedMethods } from '../../src/plugins/use-allowed-methods.js';
import { useCSRFPrevention } from '../../src/plugins/use-csrf-prevention.js';
import { ENDPOINT, send, yogaWith } from '../support/yoga.js';

const ALLOW = 'GET, HEAD, POST, OPTIONS';

describe('useAllowedMethods', () => {
  // The CSRF check after it, as in the gateway: a bare DELETE is a "simple" request to it, refused 403.
  const yoga = yogaWith([useAllowedMethods(), useCSRFPrevention()]);

  it.for(['DELETE', 'PUT', 'PATCH'])('answers a bare %s 405 with Allow, before the CSRF check', async (method) => {
    expect(await send(yoga, ENDPOINT, { method })).toEqual({
      status: 405,
      headers: { allow: ALLOW, 'content-type': 'application/json; charset=utf-8', 'content-length': expect.any(String) },
      body: { errors: [{ message: `The GraphQL endpoint serves ${ALLOW}, not ${method}.`, extensions: { code: 'BAD_REQUEST' } }] },
    });
  });

  it('answers OPTIONS 204 with Allow and an empty body', async () => {
    expect(await send(yoga, ENDPOINT, { method: 'OPTIONS' })).toEqual({
      status: 204,
      headers: { allow: ALLOW, 'content-length': '0' },
      body: null,
    });
  });

  it('leaves the methods it serves to the checks after it', async () => {
    expect((await send(yoga, `${ENDPOINT}?query={hello}`)).status).toBe(403);
    const posted = await send(yoga, ENDPOINT, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"query":"{ hello }"}',
    });
    expect([posted.status, posted.body]).toEqual([200, { data: { hello: 'Hello world' } }]);
  });

  it('lists the methods it is given', async () => {
    const only = yogaWith([useAllowedMethods({ methods: ['POST'] })]);
    const answer = await send(only, `${ENDPOINT}?query={hello}`);
    expect([answer.status, answer.headers.allow]).toEqual([405, 'POST']);
  });
});
