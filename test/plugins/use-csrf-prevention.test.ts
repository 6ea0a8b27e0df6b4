import { describe, expect, it } from 'vitest';
import { useCSRFPrevention } from '../../src/plugins/use-csrf-prevention.js';
import { ENDPOINT, post, send, yogaWith } from '../support/yoga.js';

const REFUSED = {
  status: 403,
  headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': '107' },
  body: { errors: [{ message: 'Required CSRF header(s) not present', extensions: { code: 'CSRF_HEADER_REQUIRED' } }] },
};
const HELLO = { data: { hello: 'Hello world' } };

/** A GET, the simple request a cross-site page can send with the browser's cookies. */
const get = (yoga: ReturnType<typeof yogaWith>, headers: Record<string, string> = {}) =>
  send(yoga, `${ENDPOINT}?query={hello}`, { headers });

describe('useCSRFPrevention', () => {
  const yoga = yogaWith([useCSRFPrevention()]);

  it('refuses a GET without x-graphql-yoga-csrf: 403, CSRF_HEADER_REQUIRED', async () => {
    expect(await get(yoga)).toEqual(REFUSED);
  });

  it('runs a GET that carries x-graphql-yoga-csrf', async () => {
    const answer = await get(yoga, { 'x-graphql-yoga-csrf': '1' });
    expect([answer.status, answer.body]).toEqual([200, HELLO]);
  });

  it('refuses the simple POSTs, text/plain and a form, without the header', async () => {
    const body = JSON.stringify({ query: '{ hello }' });
    expect(await send(yoga, ENDPOINT, { method: 'POST', headers: { 'content-type': 'text/plain' }, body })).toEqual(REFUSED);
    expect(
      await send(yoga, ENDPOINT, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'query={hello}',
      }),
    ).toEqual(REFUSED);
  });

  it('runs a JSON POST, which a browser preflights, without the header', async () => {
    const answer = await post(yoga, { query: '{ hello }' });
    expect([answer.status, answer.body]).toEqual([200, HELLO]);
  });

  it('exempts a request with a Bearer credential, whatever the case of the scheme', async () => {
    for (const authorization of ['Bearer abc.DEF-123_~+/=', 'bearer token', 'BEARER  token==']) {
      const answer = await get(yoga, { authorization });
      expect([authorization, answer.status, answer.body]).toEqual([authorization, 200, HELLO]);
    }
  });

  it('exempts no other credential, and no Bearer header that holds no token', async () => {
    for (const authorization of ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ', 'Bearer two tokens', 'Token abc', 'xBearer abc']) {
      expect([authorization, await get(yoga, { authorization })]).toEqual([authorization, REFUSED]);
    }
  });

  it('asks for the headers it is given instead of the default', async () => {
    const custom = yogaWith([useCSRFPrevention({ requestHeaders: ['x-apollo-operation-name', 'apollo-require-preflight'] })]);
    expect(await get(custom, { 'x-graphql-yoga-csrf': '1' })).toEqual(REFUSED);
    expect((await get(custom, { 'x-apollo-operation-name': 'Hello' })).status).toBe(200);
    expect((await get(custom, { 'apollo-require-preflight': 'true' })).status).toBe(200);
  });
});
