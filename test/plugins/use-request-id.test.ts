import type { Plugin } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { requestIdOf } from '../../src/observability/request-id.js';
import { useRequestId } from '../../src/plugins/use-request-id.js';
import { ENDPOINT, post, send, UUID, yogaWith } from '../support/yoga.js';

describe('useRequestId', () => {
  /** The id the operation's context sees, which the log line and the upstream calls use. */
  const seen: string[] = [];
  const recordContextId: Plugin = { onExecute: ({ args }) => void seen.push(requestIdOf(args.contextValue.request)) };
  const yoga = yogaWith([useRequestId(), recordContextId]);

  it("returns the caller's id, the same the operation's context sees", async () => {
    seen.length = 0;
    const answer = await post(yoga, { query: '{ hello }' }, { 'x-request-id': 'web-1.a:b_c' });
    expect(answer.headers['x-request-id']).toBe('web-1.a:b_c');
    expect(seen).toEqual(['web-1.a:b_c']);
  });

  it('makes a fresh UUID per request when the caller sent none, the same the context sees', async () => {
    seen.length = 0;
    const first = await post(yoga, { query: '{ hello }' });
    const second = await post(yoga, { query: '{ hello }' });
    expect(first.headers['x-request-id']).toMatch(UUID);
    expect(second.headers['x-request-id']).toMatch(UUID);
    expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(seen).toEqual([first.headers['x-request-id'], second.headers['x-request-id']]);
  });

  it('takes at most 128 characters of letters, digits and . : _ -, and makes a UUID for anything else', async () => {
    const longest = 'a'.repeat(128);
    expect((await post(yoga, { query: '{ hello }' }, { 'x-request-id': longest })).headers['x-request-id']).toBe(longest);
    for (const unsafe of ['a'.repeat(129), 'two words', 'a/b', 'id"quoted', '']) {
      expect((await post(yoga, { query: '{ hello }' }, { 'x-request-id': unsafe })).headers['x-request-id']).toMatch(UUID);
    }
  });

  it('is on answers that never reached GraphQL', async () => {
    const missing = await send(yoga, 'http://yoga/nothing', { headers: { 'x-request-id': 'lost-1' } });
    const preflight = await send(yoga, ENDPOINT, {
      method: 'OPTIONS',
      headers: { origin: 'http://app.example', 'access-control-request-method': 'POST', 'x-request-id': 'preflight-1' },
    });
    expect([missing.status, missing.headers['x-request-id']]).toEqual([404, 'lost-1']);
    expect([preflight.status, preflight.headers['x-request-id']]).toEqual([204, 'preflight-1']);
  });
});
