import { randomUUID } from 'node:crypto';
import { bearer } from './auth.js';
import type { Start } from './fixtures.js';
import type { TestGateway } from './gateway.js';
import { envelope } from './recording-upstream.js';
import { apiKeyRecord } from './records.js';
import type { RedisServer } from './redis.js';

/**
 * A gateway with every kind of traffic an operator sees, so that every metric it exports has
 * series: for the dashboard and alert tests against a real Prometheus (test/ops/dashboard.test.ts)
 * and the check that docs/operations.md lists every metric (test/ops/metrics-docs.test.ts).
 */

const KEYS = 'query Keys { apiKeys(first: 1) { edges { node { id } } } }';
/** The upstream answers the first attempt of this read 503 and its retry 200. */
const KEYS_RETRIED = 'query TwoKeys { apiKeys(first: 2) { edges { node { id } } } }';
/** The upstream answers 404 for this category. */
const RENAME_MISSING = 'mutation Rename { updateCategory(input: { id: "cat_404", name: "x" }) { category { id } } }';
/** And 503 for this one. */
const RENAME_FAILING = 'mutation Rename { updateCategory(input: { id: "cat_503", name: "x" }) { category { id } } }';

/** Operations a caller may send per window: each round's own caller (seven) stays below it, the flooding one does not. */
const RATE_LIMIT = 8;

/**
 * An upstream and a gateway in front of it, with the read cache, the rate limit and the shared
 * state in `redis` (kill it to make the stores fail), and one listed client name.
 */
export async function startBusyGateway(start: Start, redis: RedisServer): Promise<TestGateway> {
  let retried = false;
  const upstream = await start.upstream(({ method, path, query }) => {
    if (query.limit === '2') {
      retried = !retried;
      if (retried) return { status: 503, body: { success: false, result: null, errors: [{ message: 'answered 503' }], links: {} } };
    }
    if (method !== 'PATCH') return { body: envelope([apiKeyRecord(1)]) };
    const status = path.endsWith('cat_503') ? 503 : 404;
    return { status, body: { success: false, result: null, errors: [{ message: `answered ${status}` }], links: {} } };
  });
  return start.gateway({
    upstreamUrl: new URL(upstream.url),
    redisUrl: new URL(redis.url),
    redisKeyPrefix: `busy-${randomUUID()}:`,
    cacheTtlMs: 60_000,
    rateLimit: RATE_LIMIT,
    rateLimitUnit: 'operations',
    rateLimitWindowMs: 60_000,
    metricsClientNames: ['web-app'],
  });
}

/**
 * One round of traffic, from a caller of its own (`round` tells them apart): a read then the same
 * read twice more (a cache miss, then hits), a read answered on its retry, a write the upstream
 * answers 404 and one it answers 503, the first under an Idempotency-Key and sent again (its answer
 * kept, then replayed; with Redis gone, refused), and a caller past its rate limit (refused as RATE_LIMITED).
 */
export async function sendEveryKind(gateway: TestGateway, round: number): Promise<void> {
  const caller = { ...bearer(`caller-${round}`), 'apollographql-client-name': 'web-app', 'apollographql-client-version': '1.0' };
  for (let i = 0; i < 3; i++) await gateway.graphql(KEYS, { headers: caller });
  await gateway.graphql(KEYS_RETRIED, { headers: caller });
  const keyed = { ...caller, 'idempotency-key': `rename-${round}` };
  for (let i = 0; i < 2; i++) await gateway.graphql(RENAME_MISSING, { headers: keyed });
  await gateway.graphql(RENAME_FAILING, { headers: caller });
  for (let i = 0; i <= RATE_LIMIT; i++) await gateway.graphql(KEYS, { headers: bearer('flood') });
}
