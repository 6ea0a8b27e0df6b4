import { afterAll, beforeAll, expect, it } from 'vitest';
import { apqExtensions } from '../support/apq.js';
import { AUTH, bearer } from '../support/auth.js';
import { type ChildGateway, spawnGateway } from '../support/child-gateway.js';
import { envelope, type RecordingUpstream, startRecordingUpstream } from '../support/recording-upstream.js';
import { apiKeyPage, apiKeys, folderRecord } from '../support/records.js';
import { describeInEachTopology, UNHURRIED_COMMAND_TIMEOUT_MS } from '../support/redis.js';

/**
 * Two gateway processes over a real Redis, as two replicas of a Deployment are: a cache entry, a
 * rate limit and a persisted query made through one are seen through the other; on one Redis, on
 * a primary behind Sentinels and on a Redis Cluster alike. Redis requires a password here, given
 * by the environment as an operator would: in REDIS_URL, or as REDIS_PASSWORD.
 */
const KEYS = '{ apiKeys(first: 1) { nodes { id name } } }';

describeInEachTopology(
  'replicas sharing a Redis',
  (redis) => {
    let upstream: RecordingUpstream;
    let replicas: ChildGateway[];

    beforeAll(async () => {
      upstream = await startRecordingUpstream(({ method }) =>
        method === 'POST' ? { status: 201, body: envelope(folderRecord()) } : { body: apiKeyPage(apiKeys(1)) },
      );
      // Behind a proxy, as replicas are: each test's requests come from an address of their own.
      const env = {
        UPSTREAM_URL: upstream.url,
        ...redis().env,
        REDIS_COMMAND_TIMEOUT_MS: String(UNHURRIED_COMMAND_TIMEOUT_MS),
        CACHE_TTL_MS: '60000',
        RATE_LIMIT: '4',
        RATE_LIMIT_UNIT: 'operations',
        TRUST_PROXY_HOPS: '1',
      };
      replicas = await Promise.all([spawnGateway(env), spawnGateway(env)]);
    }, 60_000);
    afterAll(async () => {
      for (const replica of replicas ?? []) replica.child.kill('SIGKILL');
      await upstream?.close();
    });

    const post = (replica: ChildGateway, query: string) =>
      fetch(`http://127.0.0.1:${replica.port}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.1', ...AUTH },
        body: JSON.stringify({ query }),
      });

    it('answer from one cache and count against one limit', async () => {
      const [one, two] = replicas as [ChildGateway, ChildGateway];
      const first = await (await post(one, KEYS)).json();
      expect(await (await post(two, KEYS)).json()).toEqual(first);
      // One upstream call for both: the second replica found the first one's answer in Redis.
      expect(upstream.requests).toHaveLength(1);
      expect((await post(one, KEYS)).status).toBe(200);
      expect((await post(two, KEYS)).status).toBe(200);
      // The fifth operation of this caller, on either replica, is past the limit of four they share.
      expect([(await post(one, KEYS)).status, (await post(two, KEYS)).status]).toEqual([429, 429]);
      // The password never shows in their logs.
      expect(JSON.stringify(replicas.map((replica) => [replica.lines, replica.other]))).not.toContain('replica secret');
    });

    it('replay through one a mutation an Idempotency-Key ran through the other', async () => {
      const [one, two] = replicas as [ChildGateway, ChildGateway];
      const create = (replica: ChildGateway) =>
        fetch(`http://127.0.0.1:${replica.port}/graphql`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-forwarded-for': '203.0.113.3',
            ...bearer('idempotency'),
            'idempotency-key': 'k1',
          },
          body: JSON.stringify({ query: 'mutation { createFolder(input: { name: "Docs" }) { folder { id } } }' }),
        });
      const first = await create(one);
      const again = await create(two);
      const body = { data: { createFolder: { folder: { id: 'fld_1' } } } };
      expect([await first.json(), first.headers.get('idempotent-replayed')]).toEqual([body, null]);
      expect([await again.json(), again.headers.get('idempotent-replayed')]).toEqual([body, 'true']);
      expect(upstream.requests.filter(({ method }) => method === 'POST')).toHaveLength(1);
    });

    it('find a persisted query registered through the other', async () => {
      const [one, two] = replicas as [ChildGateway, ChildGateway];
      const text = '{ apiKeys(first: 1) { nodes { id } } }';
      const extensions = apqExtensions(text);
      const send = (replica: ChildGateway, body: object) =>
        fetch(`http://127.0.0.1:${replica.port}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.2', ...bearer('persisted-queries') },
          body: JSON.stringify(body),
        });
      expect((await send(two, { extensions })).status).toBe(404);
      expect((await send(one, { query: text, extensions })).status).toBe(200);
      expect(await (await send(two, { extensions })).json()).toEqual({ data: { apiKeys: { nodes: [{ id: 'k1' }] } } });
    });
  },
  { password: 'replica secret' },
);
