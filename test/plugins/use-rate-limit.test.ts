import { describe, expect, it } from 'vitest';
import { recordOf } from '../../src/operation-record.js';
import { useRateLimit } from '../../src/plugins/use-rate-limit.js';
import { callerKey } from '../../src/state/caller-key.js';
import { OperationCounter } from '../../src/state/operation-counter.js';
import type { OperationLimiter, RateDecision } from '../../src/state/operation-limiter.js';
import { recordCalls } from '../support/summaries.js';
import { post, yogaWith } from '../support/yoga.js';

/** useRateLimit counting operations with `limiter`, as the gateway makes it with RATE_LIMIT_UNIT=operations. */
const rateLimit = (limiter: OperationLimiter, options: { trustProxyHops?: number; maxTokens?: number } = {}) =>
  useRateLimit({ counter: new OperationCounter({ limiter, rateLimitUnit: 'operations', ...options }), ...options });

/** A limiter that records who took how much (a give-back as a negative count) and lets `allowance` operations through in all. */
function limiter(allowance: number) {
  const taken: Array<[string, number]> = [];
  let left = allowance;
  const decide = (allowed: boolean): RateDecision => ({ allowed, limit: allowance, remaining: Math.max(0, left), resetSeconds: 42 });
  const fake: OperationLimiter = {
    take: async (caller, count) => {
      taken.push([caller, count]);
      left -= count;
      return decide(left >= 0);
    },
    giveBack: (caller, count) => {
      taken.push([caller, -count]);
      left += count;
    },
  };
  return { fake, taken };
}

describe('useRateLimit', () => {
  it('takes one operation per request from the Bearer caller, by the hash of its credential, and from its address until the upstream accepts it, then gives it back there', async () => {
    const { fake, taken } = limiter(10);
    // The operations of token-1 make an upstream call that is answered 200; token-2's are answered 401.
    const yoga = yogaWith([rateLimit(fake)], {
      context: (context: { request: Request }) => {
        recordCalls(recordOf(context), [context.request.headers.get('authorization')?.endsWith('token-1') ? 200 : 401]);
        return {};
      },
    });
    const send = (authorization: string) => post(yoga, { query: '{ hello }' }, { authorization });
    for (const authorization of ['Bearer token-1', 'Bearer token-1', 'Bearer token-2', 'Bearer token-2']) {
      expect((await send(authorization)).status).toBe(200);
    }
    const [one, two] = [callerKey('Bearer token-1'), callerKey('Bearer token-2')];
    // In process there is no socket: the connection's address is unknown.
    expect(taken).toEqual([
      [one, 1],
      ['address:unknown', 1],
      ['address:unknown', -1],
      [one, 1],
      [two, 1],
      ['address:unknown', 1],
      [two, 1],
      ['address:unknown', 1],
    ]);
  });

  it('counts one caller however its Authorization header spells the scheme and the spaces', async () => {
    const { fake, taken } = limiter(10);
    const yoga = yogaWith([rateLimit(fake)]);
    for (const authorization of ['Bearer token-3', 'bearer token-3', 'BEARER   token-3'])
      await post(yoga, { query: '{ hello }' }, { authorization });
    expect(new Set(taken.map(([caller]) => caller))).toEqual(new Set([callerKey('Bearer token-3'), 'address:unknown']));
  });

  it('refuses past the allowance with 429, an integer Retry-After, the RateLimit headers and RATE_LIMITED', async () => {
    const { fake } = limiter(0);
    const answer = await post(yogaWith([rateLimit(fake)]), { query: '{ hello }' }, { authorization: 'Bearer t' });
    expect([
      answer.status,
      answer.headers['retry-after'],
      answer.headers['ratelimit-limit'],
      answer.headers['ratelimit-remaining'],
    ]).toEqual([429, '42', '0', '0']);
    expect(answer.headers['ratelimit-reset']).toBe('42');
    expect(answer.body).toEqual({
      errors: [
        {
          message: 'Too many operations: at most 0 per caller in each window (RATE_LIMIT). Retry after 42 s.',
          extensions: { code: 'RATE_LIMITED', retryAfter: 42 },
        },
      ],
    });
  });

  it('counts each operation of a batch', async () => {
    const { fake, taken } = limiter(10);
    await post(yogaWith([rateLimit(fake)], { batching: true }), [{ query: '{ hello }' }, { query: '{ hello }' }], {
      authorization: 'Bearer t',
    });
    expect(taken.filter(([caller]) => caller.startsWith('address:')).map(([, count]) => count)).toEqual([1, 1]);
  });

  it('lets introspection through past the allowance, but not text that only mentions it', async () => {
    const { fake } = limiter(0);
    const yoga = yogaWith([rateLimit(fake)]);
    expect((await post(yoga, { query: '{ __schema { queryType { name } } }' })).body).toEqual({
      data: { __schema: { queryType: { name: 'Query' } } },
    });
    expect((await post(yoga, { query: '{ hello } # __schema' })).status).toBe(429);
    expect((await post(yoga, { query: '{ __typename hello }' })).status).toBe(429);
    expect((await post(yoga, { query: '{ __typename }' })).body).toEqual({ data: { __typename: 'Query' } });
  });

  it('reads a refused text for introspection within maxTokens, as every parse is: past them it is refused unread', async () => {
    const { fake } = limiter(0);
    const introspection = { query: '{ __schema { queryType { name } } }' };
    expect((await post(yogaWith([rateLimit(fake, { maxTokens: 9 })]), introspection)).status).toBe(200);
    expect((await post(yogaWith([rateLimit(fake, { maxTokens: 8 })]), introspection)).status).toBe(429);
  });

  it('keys a caller without a token by address: X-Forwarded-For only trustProxyHops entries from its end', async () => {
    const { fake, taken } = limiter(10);
    const headers = { 'x-forwarded-for': 'forged, 198.51.100.1, 203.0.113.5' };
    await post(yogaWith([rateLimit(fake)]), { query: '{ hello }' }, headers);
    await post(yogaWith([rateLimit(fake, { trustProxyHops: 2 })]), { query: '{ hello }' }, headers);
    // In process there is no socket: the connection's address is unknown.
    expect(taken.map(([caller]) => caller)).toEqual(['address:unknown', 'address:198.51.100.1']);
  });

  it('takes an X-Forwarded-For entry that is no IP address for the connection’s address', async () => {
    const { fake, taken } = limiter(10);
    const yoga = yogaWith([rateLimit(fake, { trustProxyHops: 1 })]);
    for (const forwarded of ['x'.repeat(12_000), '203.0.113.5, not-an-address', '2001:db8::1']) {
      await post(yoga, { query: '{ hello }' }, { 'x-forwarded-for': forwarded });
    }
    expect(taken.map(([caller]) => caller)).toEqual(['address:unknown', 'address:unknown', 'address:2001:db8::1']);
  });
});
