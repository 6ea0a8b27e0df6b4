import { describe, expect, it } from 'vitest';
import { useRateLimit } from '../../src/plugins/use-rate-limit.js';
import { callerKey } from '../../src/state/caller-key.js';
import type { OperationLimiter, RateDecision } from '../../src/state/operation-limiter.js';
import { post, yogaWith } from '../support/yoga.js';

/** A limiter that records who took how much and lets `allowance` operations through in all. */
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
  };
  return { fake, taken };
}

describe('useRateLimit', () => {
  it('takes one operation per request from the Bearer caller, by the hash of its credential', async () => {
    const { fake, taken } = limiter(10);
    const yoga = yogaWith([useRateLimit({ limiter: fake })]);
    expect((await post(yoga, { query: '{ hello }' }, { authorization: 'Bearer token-1' })).status).toBe(200);
    expect(taken).toEqual([[callerKey('Bearer token-1'), 1]]);
  });

  it('refuses past the allowance with 429, an integer Retry-After, the RateLimit headers and RATE_LIMITED', async () => {
    const { fake } = limiter(0);
    const answer = await post(yogaWith([useRateLimit({ limiter: fake })]), { query: '{ hello }' }, { authorization: 'Bearer t' });
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
          message: 'Too many operations: at most 0 per caller in each window (RATE_LIMIT_OPERATIONS). Retry after 42 s.',
          extensions: { code: 'RATE_LIMITED', retryAfter: 42 },
        },
      ],
    });
  });

  it('counts each operation of a batch', async () => {
    const { fake, taken } = limiter(10);
    await post(yogaWith([useRateLimit({ limiter: fake })], { batching: true }), [{ query: '{ hello }' }, { query: '{ hello }' }], {
      authorization: 'Bearer t',
    });
    expect(taken.map(([, count]) => count)).toEqual([1, 1]);
  });

  it('lets introspection through past the allowance, but not text that only mentions it', async () => {
    const { fake } = limiter(0);
    const yoga = yogaWith([useRateLimit({ limiter: fake })]);
    expect((await post(yoga, { query: '{ __schema { queryType { name } } }' })).body).toEqual({
      data: { __schema: { queryType: { name: 'Query' } } },
    });
    expect((await post(yoga, { query: '{ hello } # __schema' })).status).toBe(429);
    expect((await post(yoga, { query: '{ __typename hello }' })).status).toBe(429);
  });

  it('reads a refused text for introspection within maxTokens, as every parse is: past them it is refused unread', async () => {
    const { fake } = limiter(0);
    const introspection = { query: '{ __schema { queryType { name } } }' };
    expect((await post(yogaWith([useRateLimit({ limiter: fake, maxTokens: 9 })]), introspection)).status).toBe(200);
    expect((await post(yogaWith([useRateLimit({ limiter: fake, maxTokens: 8 })]), introspection)).status).toBe(429);
  });

  it('keys a caller without a token by address: X-Forwarded-For only trustProxyHops entries from its end', async () => {
    const { fake, taken } = limiter(10);
    const headers = { 'x-forwarded-for': 'forged, 198.51.100.1, 203.0.113.5' };
    await post(yogaWith([useRateLimit({ limiter: fake })]), { query: '{ hello }' }, headers);
    await post(yogaWith([useRateLimit({ limiter: fake, trustProxyHops: 2 })]), { query: '{ hello }' }, headers);
    // In process there is no socket: the connection's address is unknown.
    expect(taken.map(([caller]) => caller)).toEqual(['address:unknown', 'address:198.51.100.1']);
  });
});
