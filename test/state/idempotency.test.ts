import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { Cluster, type Redis } from 'ioredis';
import { expect, vi } from 'vitest';
import type { StartOptions } from '../../src/server/start.js';
import { AUTH, bearer, TOKEN } from '../support/auth.js';
import { type Start, test } from '../support/fixtures.js';
import { type GraphQLAnswer, metricLines, type TestGateway } from '../support/gateway.js';
import { captureLogs } from '../support/logs.js';
import { freePort } from '../support/ports.js';
import { envelope, type RecordingUpstream, type Script, startRecordingUpstream } from '../support/recording-upstream.js';
import { folderRecord } from '../support/records.js';
import {
  clusterPrimaries,
  describeInEachTopology,
  describeWithRedis,
  type SharedRedis,
  startRedis,
  UNHURRIED_COMMAND_TIMEOUT_MS,
} from '../support/redis.js';
import { describeInEachStore } from '../support/state-modes.js';

/**
 * Idempotency-Key on a mutation (docs/clients.md, "Writes that happen once"), over real HTTP, against
 * a fake upstream that counts its writes: in process, in one Redis and in a Redis Cluster; two
 * gateways sharing one Redis; Redis failing.
 */
const CREATE = 'mutation Create($name: String!) { createFolder(input: { name: $name }) { folder { id name } } }';

/** The upstream's answer to a write: a folder created, numbered by the request's place (fld_1, fld_2, …), so that a second write shows. */
const folderCreated = (request: { body: unknown }, index: number) => ({
  status: 201,
  headers: { 'x-vms-trace': `trace-${index + 1}` },
  body: envelope(folderRecord({ id: `fld_${index + 1}`, name: (request.body as { name: string }).name })),
});
const folders: Script = folderCreated;

/** The writes the upstream received. */
const writes = (upstream: RecordingUpstream) => upstream.requests.filter(({ method }) => method === 'POST').length;

/** Creates the folder `name`, under `key` when one is given, as `headers`' caller. */
const create = (
  gateway: TestGateway,
  key: string | undefined,
  { name = 'Docs', headers = AUTH }: { name?: string; headers?: Record<string, string> } = {},
) => gateway.graphql(CREATE, { variables: { name }, headers: { ...headers, ...(key === undefined ? {} : { 'idempotency-key': key }) } });

/** What a test compares of an answer: its status, its body, and whether it was replayed. */
const seen = (answer: GraphQLAnswer) => ({ status: answer.status, body: answer.body, replayed: answer.headers.get('idempotent-replayed') });

/** The answer of the first creation of `name` as fld_<n>. */
const created = (n: number, name = 'Docs') => ({ data: { createFolder: { folder: { id: `fld_${n}`, name } } } });

/** The code of an answer's first error. */
const codeOf = (answer: GraphQLAnswer) => (answer.body.errors?.[0]?.extensions as { code?: string } | undefined)?.code;

/** `gateway_idempotency_keys_total` by outcome. */
async function outcomes(gateway: TestGateway): Promise<Record<string, number>> {
  const text = await (await fetch(gateway.metricsUrl)).text();
  return Object.fromEntries(
    [...text.matchAll(/^gateway_idempotency_keys_total\{outcome="(\w+)"\} (\d+)$/gm)].map(([, outcome, n]) => [outcome, Number(n)]),
  );
}

/** An upstream script whose first write is held, its request received, until `release()`. */
function heldFirstWrite() {
  let received = () => {};
  const arrived = new Promise<void>((resolve) => (received = resolve));
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  const script: Script = (request, index) => {
    const answer = folderCreated(request, index);
    if (index > 0) return answer;
    return (res: ServerResponse) => {
      received();
      void released.then(() => res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body)));
    };
  };
  return { script, arrived, release };
}

describeInEachStore('idempotency keys', (startInStore) => {
  const start = (servers: Start, options: StartOptions = {}, script: Script = folders) => startInStore(servers, script, options);

  test('a retry with the key gets the first answer, status, body and returned headers, marked as replayed: one write', async ({
    start: servers,
  }) => {
    const logs = captureLogs('info');
    const { upstream, gateway } = await start(servers, { returnHeaders: ['x-vms-trace'], logger: logs.logger });
    const key = `key-${randomUUID()}`;
    const first = await create(gateway, key);
    const again = await create(gateway, `"${key}"`);
    expect(seen(first)).toEqual({ status: 200, body: created(1), replayed: null });
    expect(seen(again)).toEqual({ status: 200, body: created(1), replayed: 'true' });
    expect([first.headers.get('x-vms-trace'), again.headers.get('x-vms-trace')]).toEqual(['trace-1', 'trace-1']);
    expect(writes(upstream)).toBe(1);
    // Without a key, the same mutation writes again.
    expect(seen(await create(gateway, undefined))).toEqual({ status: 200, body: created(2), replayed: null });
    expect(await outcomes(gateway)).toEqual({ stored: 1, replayed: 1 });
    const lines = logs.lines('graphql request');
    expect(lines.map(({ operationName, idempotency, upstreamCalls }) => [operationName, idempotency, upstreamCalls])).toEqual([
      ['Create', 'stored', 1],
      ['Create', 'replayed', 0],
      ['Create', undefined, 1],
    ]);
    // No key value, and no token, in any line.
    expect(logs.raw.join('\n')).not.toContain(key);
    expect(logs.raw.join('\n')).not.toContain(TOKEN);
  });

  test('a retry gets the first result in the media type it asks for, without the upstream calls the first showed', async ({
    start: servers,
  }) => {
    const { upstream, gateway } = await start(servers);
    /** The mutation under `key`, answered in `accept`, as its raw text. */
    const sent = async (key: string, accept: string, headers: Record<string, string> = {}) => {
      const response = await fetch(gateway.url, {
        method: 'POST',
        headers: { ...AUTH, ...headers, 'content-type': 'application/json', accept, 'idempotency-key': key },
        body: JSON.stringify({ query: CREATE, variables: { name: 'Docs' } }),
      });
      return {
        type: response.headers.get('content-type'),
        replayed: response.headers.get('idempotent-replayed'),
        text: await response.text(),
      };
    };
    const result = JSON.stringify(created(1));
    const sse = `:\n\nevent: next\ndata: ${result}\n\nevent: complete\ndata:\n\n`;
    // First as a graphql-sse client asks: the stream's one result; then as JSON, then as a stream again.
    expect(await sent('streamed', 'text/event-stream')).toEqual({ type: 'text/event-stream', replayed: null, text: sse });
    await vi.waitFor(async () => expect((await sent('streamed', 'application/json')).replayed).toBe('true'));
    expect(await sent('streamed', 'application/json')).toEqual({ type: 'application/json; charset=utf-8', replayed: 'true', text: result });
    expect(await sent('streamed', 'text/event-stream')).toEqual({ type: 'text/event-stream', replayed: 'true', text: sse });
    // A first answer that showed its upstream calls is replayed without them.
    const shown = await sent('shown', 'application/json', { 'x-debug-upstream': '1' });
    expect(JSON.parse(shown.text).extensions.upstream.calls).toHaveLength(1);
    await vi.waitFor(async () => expect((await sent('shown', 'application/json')).replayed).toBe('true'));
    expect(JSON.parse((await sent('shown', 'application/json')).text)).toEqual(created(2));
    expect(writes(upstream)).toBe(2);
  });

  test('an answer with an upstream error is kept and replayed as well', async ({ start: servers }) => {
    const conflict = () => ({ status: 409, body: { success: false, result: null, errors: [{ message: 'The name is taken' }], links: {} } });
    const { upstream, gateway } = await start(servers, {}, conflict);
    const first = await create(gateway, 'taken');
    expect(first.body.errors?.[0]).toMatchObject({ message: 'The name is taken', extensions: { code: 'CONFLICT' } });
    expect(seen(await create(gateway, 'taken'))).toEqual({ ...seen(first), replayed: 'true' });
    expect(writes(upstream)).toBe(1);
  });

  test('the same key with another request is refused, 422, and nothing runs', async ({ start: servers }) => {
    const { upstream, gateway } = await start(servers);
    await create(gateway, 'k1', { name: 'Docs' });
    const other = await create(gateway, 'k1', { name: 'Other' });
    expect([other.status, other.body]).toEqual([
      422,
      {
        errors: [
          {
            message:
              'This Idempotency-Key was sent with another request (another document, operation name or variables): send a new key with each new request.',
            extensions: { code: 'IDEMPOTENCY_KEY_REUSED' },
          },
        ],
      },
    ]);
    expect(writes(upstream)).toBe(1);
  });

  test('a key is its caller’s, and is remembered IDEMPOTENCY_TTL_MS after its first answer', async ({ start: servers }) => {
    const { upstream, gateway } = await start(servers, { idempotencyTtlMs: 1_000 });
    await create(gateway, 'k1');
    expect(seen(await create(gateway, 'k1', { headers: bearer('another-caller') }))).toEqual({
      status: 200,
      body: created(2),
      replayed: null,
    });
    expect(seen(await create(gateway, 'k1'))).toMatchObject({ body: created(1), replayed: 'true' });
    await sleep(1_200);
    expect(seen(await create(gateway, 'k1'))).toEqual({ status: 200, body: created(3), replayed: null });
    expect(writes(upstream)).toBe(3);
  });

  test('the key while its first request runs is refused, 409 with Retry-After, then answered with the first answer', async ({
    start: servers,
  }) => {
    const held = heldFirstWrite();
    const { upstream, gateway } = await start(servers, {}, held.script);
    const first = create(gateway, 'k1');
    await held.arrived;
    const during = await create(gateway, 'k1');
    expect([during.status, during.headers.get('retry-after'), codeOf(during)]).toEqual([409, '1', 'IDEMPOTENCY_KEY_IN_USE']);
    held.release();
    expect(seen(await first)).toEqual({ status: 200, body: created(1), replayed: null });
    expect(seen(await create(gateway, 'k1'))).toMatchObject({ body: created(1), replayed: 'true' });
    expect(writes(upstream)).toBe(1);
    expect(await outcomes(gateway)).toEqual({ conflict: 1, stored: 1, replayed: 1 });
  });

  test('nothing is kept when nothing reached the upstream: input refused, circuit open; a retry with the key runs', async ({
    start: servers,
  }) => {
    const { upstream, gateway } = await start(servers, {
      breakerMinCalls: 1,
      breakerMinCallers: 1,
      breakerErrorPercent: 10,
      breakerResetMs: 300,
      upstreamRetries: 0,
    });
    // Refused before its call: the same key then goes with another request, which it would be refused with had anything been kept.
    expect(codeOf(await create(gateway, 'k1', { name: '' }))).toBe('BAD_USER_INPUT');
    expect(seen(await create(gateway, 'k1', { name: 'Docs' }))).toEqual({ status: 200, body: created(1), replayed: null });
    // The circuit opened by another caller's failed write: the keyed write is refused before it is sent, and its retry runs.
    upstream.answer(() => ({ status: 503, body: { success: false, result: null, errors: [], links: {} } }));
    await create(gateway, undefined, { headers: bearer('opens-the-circuit') });
    upstream.answer(folders);
    expect(codeOf(await create(gateway, 'k2'))).toBe('UPSTREAM_UNAVAILABLE');
    await sleep(400);
    expect(seen(await create(gateway, 'k2'))).toEqual({ status: 200, body: created(3), replayed: null });
    expect(writes(upstream)).toBe(3);
    expect(await outcomes(gateway)).toEqual({ released: 2, stored: 2 });
  });

  test('nothing is kept when the upstream could not be reached: once it is up, a retry with the key runs', async ({ start: servers }) => {
    const port = await freePort();
    const { gateway } = await start(servers, { upstreamUrl: new URL(`http://127.0.0.1:${port}/v2`), upstreamRetries: 0 });
    expect(codeOf(await create(gateway, 'k1'))).toBe('UPSTREAM_UNAVAILABLE');
    const upstream = await startRecordingUpstream(folders, { port });
    try {
      expect(seen(await create(gateway, 'k1'))).toEqual({ status: 200, body: created(1), replayed: null });
      expect(writes(upstream)).toBe(1);
      expect(await outcomes(gateway)).toEqual({ released: 1, stored: 1 });
    } finally {
      await upstream.close();
    }
  });

  test('a write sent without an answer leaves the outcome unknown: its retry is refused, 409, and never sent', async ({
    start: servers,
  }) => {
    const { upstream, gateway } = await start(servers, { upstreamTimeoutMs: 300 });
    // The connection lost after the request arrived; then an upstream that never answers.
    upstream.answer(() => (res: ServerResponse) => res.socket?.destroy());
    expect(codeOf(await create(gateway, 'lost'))).toBe('UPSTREAM_UNAVAILABLE');
    upstream.answer(() => () => {});
    expect(codeOf(await create(gateway, 'slow'))).toBe('UPSTREAM_TIMEOUT');
    upstream.answer(folders);
    for (const key of ['lost', 'slow']) {
      const retry = await create(gateway, key);
      expect([retry.status, codeOf(retry)]).toEqual([409, 'IDEMPOTENCY_OUTCOME_UNKNOWN']);
    }
    expect(writes(upstream)).toBe(2);
    expect(await outcomes(gateway)).toEqual({ unknown: 4 });
  });

  test('a dry run keeps nothing under its key; a key on a query is ignored; a malformed key or a keyed batch is refused', async ({
    start: servers,
  }) => {
    const { upstream, gateway } = await start(servers);
    const dry = await create(gateway, undefined, { headers: { ...AUTH, 'idempotency-key': 'k1', 'x-debug-upstream': 'dry-run' } });
    expect(codeOf(dry)).toBe('DRY_RUN');
    expect(seen(await create(gateway, 'k1'))).toEqual({ status: 200, body: created(1), replayed: null });
    upstream.answer(() => ({ body: envelope([]) }));
    const read = '{ apiKeys(first: 1) { nodes { id } } }';
    for (let i = 0; i < 2; i++) expect((await gateway.graphql(read, { headers: { ...AUTH, 'idempotency-key': 'k1' } })).status).toBe(200);
    expect(upstream.requests.map(({ method }) => method)).toEqual(['POST', 'GET', 'GET']);
    expect([
      (await create(gateway, 'two, keys')).status,
      (await gateway.graphql(read, { headers: { ...AUTH, 'idempotency-key': '' } })).status,
    ]).toEqual([400, 400]);
    const batch = await fetch(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...AUTH, 'idempotency-key': 'k3' },
      body: JSON.stringify([{ query: CREATE, variables: { name: 'a' } }]),
    });
    expect([batch.status, ((await batch.json()) as { errors: Array<{ extensions: unknown }> }).errors[0]!.extensions]).toEqual([
      400,
      { code: 'BAD_REQUEST' },
    ]);
    expect(writes(upstream)).toBe(1);
  });

  test('a cached read is answered from the cache under a key, and refused under a malformed one, as Yoga refuses it', async ({
    start: servers,
  }) => {
    const { upstream, gateway } = await start(servers, { cacheTtlMs: 60_000 }, () => ({ body: envelope([]) }));
    const read = '{ apiKeys(first: 1) { nodes { id } } }';
    const empty = { data: { apiKeys: { nodes: [] } } };
    expect((await gateway.graphql(read, { headers: AUTH })).body).toEqual(empty);
    // The hit path would answer these before Yoga: a request with a key is Yoga's to read, where its key is checked.
    expect((await gateway.graphql(read, { headers: { ...AUTH, 'idempotency-key': 'k1' } })).body).toEqual(empty);
    const malformed = await gateway.graphql(read, { headers: { ...AUTH, 'idempotency-key': 'k1, k2' } });
    expect([malformed.status, codeOf(malformed)]).toEqual([400, 'BAD_REQUEST']);
    expect(upstream.requests).toHaveLength(1);
  });

  test('a client that goes away does not cancel its keyed write: its retry gets the answer', async ({ start: servers }) => {
    const held = heldFirstWrite();
    const { upstream, gateway } = await start(servers, {}, held.script);
    const client = new AbortController();
    const gone = fetch(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...AUTH, 'idempotency-key': 'k1' },
      body: JSON.stringify({ query: CREATE, variables: { name: 'Docs' } }),
      signal: client.signal,
    }).catch((error: unknown) => error);
    await held.arrived;
    client.abort();
    await gone;
    held.release();
    await vi.waitFor(async () => expect(seen(await create(gateway, 'k1'))).toMatchObject({ body: created(1), replayed: 'true' }));
    expect(writes(upstream)).toBe(1);
  });
});

/** Every script Redis ran (EVAL and EVALSHA calls; every command of a store is one), on every primary. */
async function scriptsRun(client: Redis | Cluster): Promise<number> {
  const nodes = client instanceof Cluster ? await clusterPrimaries(client) : [client];
  let total = 0;
  for (const node of nodes) {
    const stats = await node.info('commandstats');
    for (const [, calls] of stats.matchAll(/^cmdstat_eval(?:sha)?:calls=(\d+),/gm)) total += Number(calls);
  }
  return total;
}

describeInEachTopology(
  'idempotency keys across replicas',
  (redis: () => SharedRedis) => {
    const options = () => ({
      ...redis().settings,
      redisCommandTimeoutMs: UNHURRIED_COMMAND_TIMEOUT_MS,
      redisKeyPrefix: `test-${randomUUID()}:`,
    });

    test('two gateways sharing Redis make one upstream write for concurrent requests with one key', async ({ start }) => {
      const held = heldFirstWrite();
      const upstream = await start.upstream(held.script);
      const shared = { upstreamUrl: new URL(upstream.url), ...options() };
      const [one, two] = [await start.gateway(shared), await start.gateway(shared)];
      // Until a gateway has reached Redis, it refuses keyed mutations (503): the scenario starts with both sharing.
      for (const gateway of [one, two]) {
        await vi.waitFor(
          async () => expect(await metricLines(gateway, 'gateway_shared_state_up ')).toEqual(['gateway_shared_state_up 1']),
          {
            timeout: 10_000,
          },
        );
      }
      const first = create(one, 'k1');
      await held.arrived;
      const during = await create(two, 'k1');
      expect([during.status, during.headers.get('retry-after'), codeOf(during)]).toEqual([409, '1', 'IDEMPOTENCY_KEY_IN_USE']);
      held.release();
      expect(seen(await first)).toEqual({ status: 200, body: created(1), replayed: null });
      await vi.waitFor(async () => expect(seen(await create(two, 'k1'))).toEqual({ status: 200, body: created(1), replayed: 'true' }));
      // Many at once through both: one write, every answer the first's or a refusal to wait.
      const burst = await Promise.all(Array.from({ length: 12 }, (_, i) => create(i % 2 ? one : two, 'k2', { name: 'Burst' })));
      expect(writes(upstream)).toBe(2);
      const answered = burst.filter(({ status }) => status === 200);
      expect(answered.length).toBeGreaterThan(0);
      expect(new Set(answered.map(({ body }) => JSON.stringify(body)))).toEqual(new Set([JSON.stringify(created(2, 'Burst'))]));
      expect(burst.filter(({ status }) => status !== 200).map(codeOf)).toEqual(
        Array.from({ length: burst.length - answered.length }, () => 'IDEMPOTENCY_KEY_IN_USE'),
      );
    });

    test('a keyed mutation costs one round trip to Redis before its write, and one settlement after it', async ({ start }) => {
      const inspector = redis().client();
      let atWrite: number | undefined;
      const upstream = await start.upstream((request, index) => (res: ServerResponse) => {
        void scriptsRun(inspector).then((count) => {
          atWrite = count;
          const { body, headers } = folderCreated(request, index);
          res.writeHead(201, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
        });
      });
      // The rate limit on, as by default: its count is a round trip of every operation, keyed or not.
      const gateway = await start.gateway({ upstreamUrl: new URL(upstream.url), ...options(), rateLimit: 600 });
      /** The scripts run before the write reached the upstream, and in all once the answer is out, for one mutation. */
      const cost = async (key: string | undefined) => {
        const before = await scriptsRun(inspector);
        expect((await create(gateway, key)).status).toBe(200);
        const sentBefore = atWrite! - before;
        let all = 0;
        await vi.waitFor(async () => {
          all = (await scriptsRun(inspector)) - before;
          expect(all).toBeGreaterThanOrEqual(sentBefore + (key === undefined ? 0 : 1));
        });
        return { beforeTheWrite: sentBefore, inAll: all };
      };
      // The first of each loads its scripts and vouches for the caller; the second is the one measured.
      await cost(undefined);
      await cost('warm-up');
      const unkeyed = await cost(undefined);
      const keyed = await cost('measured');
      expect({ beforeTheWrite: keyed.beforeTheWrite - unkeyed.beforeTheWrite, inAll: keyed.inAll - unkeyed.inAll }).toEqual({
        beforeTheWrite: 1,
        inAll: 2,
      });
    });
  },
  { topologies: ['one Redis', 'a Redis Cluster'] },
);

describeWithRedis('idempotency keys while Redis fails', () => {
  test('a keyed mutation is refused, 503 with Retry-After, and writes nothing; one without a key runs', async ({ start }) => {
    const redis = await startRedis();
    try {
      const upstream = await start.upstream(folders);
      const gateway = await start.gateway({ upstreamUrl: new URL(upstream.url), redisUrl: new URL(redis.url), redisCommandTimeoutMs: 200 });
      await gateway.gateway.stateConnected();
      await redis.kill();
      const refused = await create(gateway, 'k1');
      expect([refused.status, refused.headers.get('retry-after'), refused.body]).toEqual([
        503,
        '1',
        {
          errors: [
            {
              message: 'The gateway cannot check idempotency keys now, and runs no mutation with one unprotected: send it again after 1 s.',
              extensions: { code: 'IDEMPOTENCY_UNAVAILABLE', retryAfter: 1 },
            },
          ],
        },
      ]);
      expect(seen(await create(gateway, undefined))).toEqual({ status: 200, body: created(1), replayed: null });
      expect(writes(upstream)).toBe(1);
      expect(await outcomes(gateway)).toEqual({ unavailable: 1 });
    } finally {
      await redis.close();
    }
  });
});
