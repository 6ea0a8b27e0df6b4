import { setTimeout as sleep } from 'node:timers/promises';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { defaultSettings } from '../../src/config/settings.js';
import { createLogger } from '../../src/observability/logger.js';
import { callerKey } from '../../src/state/caller-key.js';
import { type KeptAnswer, keyOf } from '../../src/state/idempotency-keys.js';
import type { ResponseCache } from '../../src/state/response-cache.js';
import { openSharedState, type SharedState } from '../../src/state/shared-state.js';
import { captureLogs } from '../support/logs.js';
import {
  describeInEachTopology,
  describeWithRedis,
  type RedisServer,
  type RedisSettings,
  type SharedRedis,
  startRedis,
  UNHURRIED_COMMAND_TIMEOUT_MS,
} from '../support/redis.js';

/**
 * One contract for each store, run against both of its implementations: in this process (no
 * REDIS_URL) and in a real redis-server. What differs between the two (sharing across replicas,
 * Redis failing) is tested below, on Redis alone.
 */
const settings = { ...defaultSettings(), rateLimit: 5, rateLimitWindowMs: 60_000, cacheTtlMs: 60_000, cacheBytes: 1024 * 1024 };
const open = async (redis: RedisSettings & { redisCommandTimeoutMs?: number } = {}) =>
  openSharedState({ ...settings, ...redis }, { logger: createLogger({ level: 'silent' }), registry: new Registry() });

const alice = callerKey('Bearer alice-token');
const bob = callerKey('Bearer bob-token');

/** When the tests' answers were kept: found again as it was given. */
const STORED_AT = 1_767_225_600_000;

/** A mutation's answer kept under an idempotency key. */
const ANSWER: KeptAnswer = {
  status: 200,
  headers: { deprecation: '@1767225600' },
  hasData: false,
  errorCodes: ['UPSTREAM_ERROR', 'CONFLICT'],
  body: '{"data":{"createFolder":null},\n"errors":[]}',
};
/** A claim that holds a minute, and a key remembered a minute after it is settled. */
const MINUTE = { leaseMs: 60_000, ttlMs: 60_000 };

/** The body kept for a caller's request, as a lookup finds it. */
const cached = async (cache: ResponseCache, caller: string, request: string) => (await cache.get(caller, request)).answer?.body;

/** Stores an answer as the read cache does: under the generation its lookup found. */
async function store(cache: ResponseCache, caller: string, request: string, body: string, ttlMs: number) {
  const { generation } = await cache.get(caller, request);
  await cache.set(caller, request, { body, operationName: undefined, storedAt: STORED_AT }, ttlMs, generation);
}

function contract(name: string, make: () => Promise<{ state: SharedState; close(): Promise<void> }>) {
  describe(name, () => {
    let state: SharedState;
    let close: () => Promise<void>;
    beforeAll(async () => ({ state, close } = await make()));
    afterAll(() => close());

    it('response cache: a caller finds its own answer again, another caller never does', async () => {
      expect(await cached(state.responseCache!, alice, 'r1')).toBeUndefined();
      await store(state.responseCache!, alice, 'r1', '{"data":{"a":1}}', 60_000);
      expect(await cached(state.responseCache!, alice, 'r1')).toBe('{"data":{"a":1}}');
      expect(await cached(state.responseCache!, bob, 'r1')).toBeUndefined();
      expect(await cached(state.responseCache!, alice, 'r2')).toBeUndefined();
    });

    it('response cache: an answer is gone after its time to live', async () => {
      await store(state.responseCache!, alice, 'short', 'x', 50);
      expect(await cached(state.responseCache!, alice, 'short')).toBe('x');
      await sleep(120);
      expect(await cached(state.responseCache!, alice, 'short')).toBeUndefined();
    });

    it("response cache: dropping a caller's answers leaves the others'", async () => {
      await store(state.responseCache!, alice, 'd1', 'a', 60_000);
      await store(state.responseCache!, bob, 'd1', 'b', 60_000);
      await state.responseCache!.dropCaller(alice);
      expect([await cached(state.responseCache!, alice, 'd1'), await cached(state.responseCache!, bob, 'd1')]).toEqual([undefined, 'b']);
    });

    it("response cache: an answer looked up before a drop of its caller's answers is not stored after it", async () => {
      const cache = state.responseCache!;
      const before = await cache.get(alice, 'raced');
      await cache.dropCaller(alice);
      await cache.set(
        alice,
        'raced',
        { body: 'read before the drop', operationName: undefined, storedAt: STORED_AT },
        60_000,
        before.generation,
      );
      expect(await cached(cache, alice, 'raced')).toBeUndefined();
      const after = await cache.get(alice, 'raced');
      await cache.set(alice, 'raced', { body: 'read after it', operationName: 'Keys', storedAt: STORED_AT }, 60_000, after.generation);
      expect((await cache.get(alice, 'raced')).answer).toEqual({ body: 'read after it', operationName: 'Keys', storedAt: STORED_AT });
      // Another caller's generation is its own.
      await store(cache, bob, 'raced', 'bob', 60_000);
      expect(await cached(cache, bob, 'raced')).toBe('bob');
    });

    it('idempotency keys: a key is claimed once; the same request then finds it running, another one finds it reused', async () => {
      const keys = state.idempotencyKeys;
      const key = keyOf(alice, `claimed-${name}`);
      const claim = await keys.claim(key, 'request-1', MINUTE);
      expect(claim).toEqual({ found: 'claimed', token: expect.stringMatching(/^[\w-]{36}$/) });
      expect(await keys.claim(key, 'request-1', MINUTE)).toEqual({ found: 'running' });
      expect(await keys.claim(key, 'request-2', MINUTE)).toEqual({ found: 'reused' });
      // The same key sent by another caller is another key.
      expect(await keys.claim(keyOf(bob, `claimed-${name}`), 'request-2', MINUTE)).toMatchObject({ found: 'claimed' });
    });

    it('idempotency keys: an answered key gives its answer back, as it was kept, to the same request only', async () => {
      const keys = state.idempotencyKeys;
      const key = keyOf(alice, `answered-${name}`);
      const claim = await keys.claim(key, 'request-1', MINUTE);
      await keys.settle(key, claim.found === 'claimed' ? claim.token : '', { outcome: 'answered', answer: ANSWER }, 60_000);
      expect(await keys.claim(key, 'request-1', MINUTE)).toEqual({ found: 'answered', answer: ANSWER });
      expect(await keys.claim(key, 'request-2', MINUTE)).toEqual({ found: 'reused' });
    });

    it('idempotency keys: a run settled unknown stays so; one freed is claimed anew; only the claim’s token settles it', async () => {
      const keys = state.idempotencyKeys;
      const unknown = keyOf(alice, `unknown-${name}`);
      const first = await keys.claim(unknown, 'request-1', MINUTE);
      await keys.settle(unknown, 'another token', { outcome: 'answered', answer: ANSWER }, 60_000);
      expect(await keys.claim(unknown, 'request-1', MINUTE)).toEqual({ found: 'running' });
      await keys.settle(unknown, first.found === 'claimed' ? first.token : '', { outcome: 'unknown' }, 60_000);
      expect(await keys.claim(unknown, 'request-1', MINUTE)).toEqual({ found: 'unknown' });
      expect(await keys.claim(unknown, 'request-2', MINUTE)).toEqual({ found: 'reused' });

      const freed = keyOf(alice, `freed-${name}`);
      const claim = await keys.claim(freed, 'request-1', MINUTE);
      await keys.settle(freed, claim.found === 'claimed' ? claim.token : '', { outcome: 'free' }, 60_000);
      expect(await keys.claim(freed, 'request-2', MINUTE)).toMatchObject({ found: 'claimed' });
    });

    it('idempotency keys: a run past its lease, unsettled, is unknown; a settled key is forgotten after its time to live', async () => {
      const keys = state.idempotencyKeys;
      const lapsed = keyOf(alice, `lapsed-${name}`);
      await keys.claim(lapsed, 'request-1', { leaseMs: 50, ttlMs: 60_000 });
      const answered = keyOf(alice, `expiring-${name}`);
      const claim = await keys.claim(answered, 'request-1', MINUTE);
      await keys.settle(answered, claim.found === 'claimed' ? claim.token : '', { outcome: 'answered', answer: ANSWER }, 50);
      await sleep(120);
      expect(await keys.claim(lapsed, 'request-1', MINUTE)).toEqual({ found: 'unknown' });
      expect(await keys.claim(answered, 'request-2', MINUTE)).toMatchObject({ found: 'claimed' });
    });

    it('persisted queries: a document is found by its hash once registered', async () => {
      expect(await state.persistedQueries!.get('h1')).toBeUndefined();
      await state.persistedQueries!.set('h1', '{ __typename }');
      expect(await state.persistedQueries!.get('h1')).toBe('{ __typename }');
    });

    it('operation limits: a caller may take its allowance, a batch counting each operation, then is refused until the window ends', async () => {
      const limiter = state.operationLimiter!;
      const carol = callerKey(`Bearer carol-${name}`);
      expect(await limiter.take(carol, 3)).toEqual({ allowed: true, limit: 5, remaining: 2, resetSeconds: 60 });
      expect(await limiter.take(carol, 2)).toMatchObject({ allowed: true, remaining: 0 });
      const refused = await limiter.take(carol, 1);
      expect(refused).toMatchObject({ allowed: false, limit: 5, remaining: 0 });
      expect(refused.resetSeconds).toBeGreaterThanOrEqual(59);
      expect(refused.resetSeconds).toBeLessThanOrEqual(60);
      // Another caller has an allowance of its own.
      expect(await limiter.take(callerKey(`Bearer dave-${name}`), 1)).toMatchObject({ allowed: true, remaining: 4 });
    });

    it('operation limits: what is given back is taken again, never more than was taken, and nothing for a window not begun', async () => {
      const limiter = state.operationLimiter!;
      const erin = callerKey(`Bearer erin-${name}`);
      await limiter.take(erin, 4);
      limiter.giveBack(erin, 3);
      // A give-back is not awaited: the next take comes after it all the same (one connection, one process).
      await vi.waitFor(async () => expect(await limiter.take(erin, 0)).toMatchObject({ remaining: 4 }));
      limiter.giveBack(erin, 10);
      await vi.waitFor(async () => expect(await limiter.take(erin, 0)).toMatchObject({ remaining: 5 }));
      expect(await limiter.take(erin, 6)).toMatchObject({ allowed: false });
      const frank = callerKey(`Bearer frank-${name}`);
      limiter.giveBack(frank, 2);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await limiter.take(frank, 5)).toMatchObject({ allowed: true, remaining: 0 });
    });
  });
}

contract('in process', async () => {
  const state = await open();
  return { state, close: () => state.close() };
});

describe('in process, what only the process does', () => {
  it('response cache: holds at most CACHE_BYTES, however many callers fill it and however often', async () => {
    const state = await open();
    const body = 'x'.repeat(8 * 1024);
    const callers = Array.from({ length: 50 }, (_, i) => callerKey(`Bearer filler-${i}`));
    for (const caller of callers) for (let i = 0; i < 60; i++) await store(state.responseCache!, caller, `r${i}`, body, 60_000);
    let kept = 0;
    for (const caller of callers)
      for (let i = 0; i < 60; i++) if ((await cached(state.responseCache!, caller, `r${i}`)) !== undefined) kept++;
    // Two bytes a character: what is still served fits the budget (50 × 60 answers would be 47 MiB).
    expect(kept).toBeGreaterThan(0);
    expect(kept * 2 * body.length).toBeLessThanOrEqual(settings.cacheBytes);
  });

  it('idempotency keys: hold at most IDEMPOTENCY_STORE_BYTES, the least recently used forgotten first', async () => {
    const state = await openSharedState(
      { ...settings, idempotencyStoreBytes: 1024 * 1024 },
      { logger: createLogger({ level: 'silent' }), registry: new Registry() },
    );
    const answer = { ...ANSWER, body: 'x'.repeat(8 * 1024) };
    for (let i = 0; i < 200; i++) {
      const claim = await state.idempotencyKeys.claim(keyOf(alice, `k${i}`), 'request', MINUTE);
      await state.idempotencyKeys.settle(
        keyOf(alice, `k${i}`),
        claim.found === 'claimed' ? claim.token : '',
        { outcome: 'answered', answer },
        60_000,
      );
    }
    let kept = 0;
    for (let i = 0; i < 200; i++)
      if ((await state.idempotencyKeys.claim(keyOf(alice, `k${i}`), 'request', MINUTE)).found === 'answered') kept++;
    // Two bytes a character: what is kept fits the budget (200 answers would be 3.2 MiB); the newest are kept.
    expect(kept).toBeGreaterThan(0);
    expect(kept * 2 * answer.body.length).toBeLessThanOrEqual(1024 * 1024);
    expect((await state.idempotencyKeys.claim(keyOf(alice, 'k199'), 'request', MINUTE)).found).toBe('answered');
  });

  it('idempotency keys: never forget a running key for want of room, nor run again one whose answer does not fit', async () => {
    const state = await openSharedState(
      { ...settings, idempotencyStoreBytes: 1024 * 1024 },
      { logger: createLogger({ level: 'silent' }), registry: new Registry() },
    );
    const keys = state.idempotencyKeys;
    const running = await keys.claim(keyOf(alice, 'running'), 'request', MINUTE);
    expect(running.found).toBe('claimed');
    // Settled answers well past the budget push each other out, never the run going on.
    const answer = { ...ANSWER, body: 'x'.repeat(64 * 1024) };
    for (let i = 0; i < 40; i++) {
      const claim = await keys.claim(keyOf(alice, `k${i}`), 'request', MINUTE);
      await keys.settle(keyOf(alice, `k${i}`), claim.found === 'claimed' ? claim.token : '', { outcome: 'answered', answer }, 60_000);
    }
    expect((await keys.claim(keyOf(alice, 'running'), 'request', MINUTE)).found).toBe('running');
    // An answer larger than the whole store is not kept, and its key is not free: its retry is refused, never run.
    const huge = await keys.claim(keyOf(alice, 'huge'), 'request', MINUTE);
    await keys.settle(
      keyOf(alice, 'huge'),
      huge.found === 'claimed' ? huge.token : '',
      { outcome: 'answered', answer: { ...ANSWER, body: 'x'.repeat(600_000) } },
      60_000,
    );
    expect((await keys.claim(keyOf(alice, 'huge'), 'request', MINUTE)).found).toBe('unknown');
  });

  it('makes no store that is turned off: CACHE_TTL_MS=0, APQ_STORE_BYTES=0, RATE_LIMIT=0', async () => {
    const state = await openSharedState(
      { ...settings, cacheTtlMs: 0, apqStoreBytes: 0, rateLimit: 0 },
      { logger: createLogger({ level: 'silent' }), registry: new Registry() },
    );
    expect([state.responseCache, state.persistedQueries, state.operationLimiter]).toEqual([undefined, undefined, undefined]);
  });
});

/** Each topology, with a password as an operator sets one. */
describeInEachTopology(
  'in Redis',
  (redis) => {
    const connected = async () => {
      const state = await open({ ...redis().settings, redisCommandTimeoutMs: UNHURRIED_COMMAND_TIMEOUT_MS });
      await state.connected();
      return state;
    };

    contract('the same contract', async () => {
      const state = await connected();
      return { state, close: () => state.close() };
    });

    describe('what only Redis does', () => whatOnlyRedisDoes(redis, connected));
  },
  { password: 'a password with spaces' },
);

function whatOnlyRedisDoes(redis: () => SharedRedis, connected: () => Promise<SharedState>) {
  it('is shared by every replica: what one stores or counts, the other sees, and two enforce one limit', async () => {
    const [one, two] = [await connected(), await connected()];
    try {
      await store(one.responseCache!, alice, 'shared', 'answer', 60_000);
      await one.persistedQueries!.set('shared-hash', '{ __typename }');
      expect([await cached(two.responseCache!, alice, 'shared'), await two.persistedQueries!.get('shared-hash')]).toEqual([
        'answer',
        '{ __typename }',
      ]);
      const erin = callerKey('Bearer erin-token');
      for (let i = 0; i < 5; i++) expect((await (i % 2 ? one : two).operationLimiter!.take(erin, 1)).allowed).toBe(true);
      expect((await one.operationLimiter!.take(erin, 1)).allowed).toBe(false);
      expect((await two.operationLimiter!.take(erin, 1)).allowed).toBe(false);
      // A drop through one replica is seen by a write through the other that looked up before it.
      const before = await one.responseCache!.get(alice, 'raced');
      await two.responseCache!.dropCaller(alice);
      await one.responseCache!.set(
        alice,
        'raced',
        { body: 'stale', operationName: undefined, storedAt: STORED_AT },
        60_000,
        before.generation,
      );
      expect(await cached(two.responseCache!, alice, 'raced')).toBeUndefined();
      // A key claimed through one is running for the other, and its answer, kept through one, is found through the other.
      const key = keyOf(alice, 'shared-key');
      const claim = await one.idempotencyKeys.claim(key, 'request', MINUTE);
      expect(await two.idempotencyKeys.claim(key, 'request', MINUTE)).toEqual({ found: 'running' });
      await one.idempotencyKeys.settle(key, claim.found === 'claimed' ? claim.token : '', { outcome: 'answered', answer: ANSWER }, 60_000);
      expect(await two.idempotencyKeys.claim(key, 'request', MINUTE)).toEqual({ found: 'answered', answer: ANSWER });
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });

  it('holds no token, in a key or a value, and writes every key under the prefix', async () => {
    const state = await connected();
    const inspector = redis().client();
    try {
      const token = 'Bearer frank-secret-token';
      await store(state.responseCache!, callerKey(token), 'r', '{"data":{"apiKeys":null}}', 60_000);
      await state.operationLimiter!.take(callerKey(token), 1);
      await state.idempotencyKeys.claim(keyOf(callerKey(token), 'a key of frank'), 'request', MINUTE);
      const keys = await redis().keys('*');
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.filter((key) => !key.startsWith(settings.redisKeyPrefix))).toEqual([]);
      const values = await Promise.all(
        keys.map(async (key) => {
          const type = await inspector.type(key);
          return type === 'hash' ? inspector.hgetall(key) : type === 'zset' ? inspector.zrange(key, 0, -1) : inspector.get(key);
        }),
      );
      const everything = JSON.stringify([keys, values]);
      expect(everything).toContain('apiKeys');
      expect(everything).not.toContain('frank-secret-token');
    } finally {
      await state.close();
    }
  });
}

describeWithRedis('in Redis, when Redis fails', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis.close());

  /** Log lines, as JSON. */
  async function capturingState() {
    const { logger, lines } = captureLogs('warn');
    const registry = new Registry();
    const state = await openSharedState({ ...settings, redisUrl: new URL(redis.url) }, { logger, registry });
    const errors = async () => (await registry.getSingleMetric('gateway_shared_state_errors_total')!.get()).values;
    return { state, lines, errors };
  }

  it('down: every store answers at once, as a miss or from this replica, counts it, warns once, and sharing resumes when it is back', async () => {
    const { state, lines, errors } = await capturingState();
    await state.connected();
    await redis.kill();
    const started = performance.now();
    expect(await cached(state.responseCache!, alice, 'r')).toBeUndefined();
    await store(state.responseCache!, alice, 'r', 'x', 60_000);
    expect(await state.persistedQueries!.get('h')).toBeUndefined();
    // The counter of this replica takes over: the caller still has a limit.
    const gina = callerKey('Bearer gina-token');
    for (let i = 0; i < 5; i++) expect((await state.operationLimiter!.take(gina, 1)).allowed).toBe(true);
    expect((await state.operationLimiter!.take(gina, 1)).allowed).toBe(false);
    expect(performance.now() - started).toBeLessThan(settings.redisCommandTimeoutMs * 10);
    expect(Object.fromEntries((await errors()).map(({ labels, value }) => [labels.store, value]))).toEqual({
      responseCache: 2,
      persistedQueries: 1,
      rateLimits: 6,
    });
    // One warning per store, not one per failure; no address in it. (Redis lost has its own line: test/state/redis-reach.test.ts.)
    expect(lines('shared state: Redis failed a command; answered without it').map(({ store, msg }) => [store, msg])).toEqual([
      ['responseCache', 'shared state: Redis failed a command; answered without it'],
      ['persistedQueries', 'shared state: Redis failed a command; answered without it'],
      ['rateLimits', 'shared state: Redis failed a command; answered without it'],
    ]);
    expect(JSON.stringify(lines())).not.toContain(String(redis.port));

    await redis.restart();
    await state.connected();
    await state.persistedQueries!.set('back', '{ __typename }');
    expect(await state.persistedQueries!.get('back')).toBe('{ __typename }');
    await state.close();
  });

  it('frozen: a command that gets no answer gives up after REDIS_COMMAND_TIMEOUT_MS', async () => {
    const { state, errors } = await capturingState();
    await state.connected();
    redis.freeze();
    try {
      const started = performance.now();
      expect(await cached(state.responseCache!, alice, 'r')).toBeUndefined();
      const waited = performance.now() - started;
      expect(waited).toBeGreaterThanOrEqual(settings.redisCommandTimeoutMs - 5);
      expect(waited).toBeLessThan(settings.redisCommandTimeoutMs * 10);
      expect((await errors()).map(({ value }) => value)).toEqual([1]);
    } finally {
      redis.thaw();
      await state.close();
    }
  });

  it('down: a claim is unavailable at once, a settlement is dropped, and each is counted', async () => {
    const { state, errors } = await capturingState();
    await state.connected();
    await redis.kill();
    try {
      const key = keyOf(alice, 'while down');
      expect(await state.idempotencyKeys.claim(key, 'request', MINUTE)).toEqual({ found: 'unavailable' });
      await state.idempotencyKeys.settle(key, 'token', { outcome: 'unknown' }, 60_000);
      expect(Object.fromEntries((await errors()).map(({ labels, value }) => [labels.store, value]))).toEqual({ idempotencyKeys: 2 });
    } finally {
      await redis.restart();
      await state.close();
    }
  });
});
