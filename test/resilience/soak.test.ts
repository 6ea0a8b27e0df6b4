import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { expect } from 'vitest';
import { bearer } from '../support/auth.js';
import { gatewayOverUpstream } from '../support/fixtures.js';
import type { TestGateway } from '../support/gateway.js';
import { heapAfterGc } from '../support/heap.js';
import { envelope, type RecordingUpstream } from '../support/recording-upstream.js';
import { apiKeys, categoryRecord } from '../support/records.js';

/**
 * A bounded soak: a few thousand mixed requests over loopback, some of them failing upstream in
 * different ways. Afterwards the heap and the open sockets must be back near their baseline:
 * nothing per request may outlive its request.
 */
const REQUESTS = Number(process.env.SOAK_REQUESTS ?? 2_000);
const CONCURRENCY = 16;
/** Generous, so that only the scripted slow answers time out on a busy machine. */
const TIMEOUT_MS = 1_000;
/** Heap growth allowed after a full GC: a leak of 2 KiB or more per request would exceed it. */
const HEAP_MARGIN_BYTES = 4 * 1024 * 1024;
/**
 * Sockets allowed above the baseline. Idle keep-alive sockets to the upstream, and their server
 * ends in this same process, are bounded by the concurrency; a socket leaked per failed request
 * (320 of them here) would exceed it tenfold.
 */
const SOCKET_MARGIN = 2 * CONCURRENCY;

// The gateway forwards x-request-id, so the upstream reads from it how to misbehave.
const it = gatewayOverUpstream(
  (request) => {
    const kind = String(request.headers['x-request-id']).split('-')[0];
    if (kind === 'fail') return { status: 500, body: { success: false, result: null, errors: [{ message: 'boom' }], links: {} } };
    if (kind === 'slow') return { body: envelope(apiKeys(2)), delayMs: TIMEOUT_MS + 100 };
    if (kind === 'reset') return (res) => res.socket?.destroy();
    if (request.method === 'PATCH') return { body: envelope(categoryRecord({ id: 'cat_1', name: 'N' })) };
    return { body: envelope(apiKeys(Number(request.query.limit))) };
  },
  { upstreamTimeoutMs: TIMEOUT_MS, breakerMinCalls: 1_000_000, upstreamRetryMaxDelayMs: 50 },
);

const MIX = [
  { weight: 64, kind: 'ok', body: { query: '{ apiKeys(first: 5) { nodes { id name } } }' } },
  { weight: 10, kind: 'write', body: { query: 'mutation { updateCategory(input: { id: "cat_1", name: "N" }) { category { id } } }' } },
  { weight: 10, kind: 'fail', body: { query: '{ apiKeys(first: 5) { nodes { id } } }' } },
  { weight: 1, kind: 'slow', body: { query: '{ apiKeys(first: 5) { nodes { id } } }' } },
  { weight: 5, kind: 'reset', body: { query: '{ apiKeys(first: 5) { nodes { id } } }' } },
  { weight: 10, kind: 'mistake', body: { query: '{ apiKeys(first: "x") { nodes { nope } } }' } },
];
const schedule = MIX.flatMap((entry) => Array.from({ length: entry.weight }, () => entry));

async function run(gateway: TestGateway, count: number): Promise<Map<string, number>> {
  const client = new Pool(new URL(gateway.url).origin, { connections: CONCURRENCY });
  const outcomes = new Map<string, number>();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const n = next++;
      const entry = schedule[n % schedule.length]!;
      const response = await client.request({
        method: 'POST',
        path: '/graphql',
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json',
          // A caller per kind: identical reads of one caller in flight at once share one upstream call,
          // so a failing kind would otherwise hand its failure to the others.
          ...bearer(`soak-${entry.kind}`),
          'x-request-id': `${entry.kind}-${n}`,
        },
        body: JSON.stringify(entry.body),
      });
      const answer = (await response.body.json()) as { errors?: { extensions?: { code?: string } }[] };
      const outcome = `${entry.kind}:${response.statusCode}:${answer.errors?.[0]?.extensions?.code ?? 'ok'}`;
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  await client.close();
  return outcomes;
}

/** Settles pending timers and sockets, forgets the recorded requests (they would count as heap), collects garbage, and measures. */
async function measure(upstream: RecordingUpstream) {
  await sleep(300);
  upstream.reset();
  return {
    heap: heapAfterGc(),
    sockets: process.getActiveResourcesInfo().filter((resource) => resource === 'TCPSocketWrap').length,
  };
}

it(`serves ${REQUESTS} mixed requests and returns to its baseline heap and sockets`, async ({ gateway, upstream }) => {
  await run(gateway, 500);
  const before = await measure(upstream);

  const outcomes = await run(gateway, REQUESTS);
  const after = await measure(upstream);

  const total = (prefix: string) => [...outcomes].filter(([key]) => key.startsWith(prefix)).reduce((sum, [, n]) => sum + n, 0);
  // Every request answered with the documented outcome for its kind.
  expect(Object.fromEntries(outcomes)).toEqual({
    'ok:200:ok': total('ok:'),
    'write:200:ok': total('write:'),
    'fail:200:UPSTREAM_ERROR': total('fail:'),
    'slow:200:UPSTREAM_TIMEOUT': total('slow:'),
    // Three connection attempts may outlast the call's timeout on a busy machine: then it is a timeout.
    'reset:200:UPSTREAM_UNAVAILABLE': total('reset:') - (outcomes.get('reset:200:UPSTREAM_TIMEOUT') ?? 0),
    ...(outcomes.has('reset:200:UPSTREAM_TIMEOUT') ? { 'reset:200:UPSTREAM_TIMEOUT': outcomes.get('reset:200:UPSTREAM_TIMEOUT') } : {}),
    'mistake:400:GRAPHQL_VALIDATION_FAILED': total('mistake:'),
  });
  expect([...outcomes.values()].reduce((a, b) => a + b, 0)).toBe(REQUESTS);

  console.info(
    `soak: heap ${(before.heap / 2 ** 20).toFixed(1)} -> ${(after.heap / 2 ** 20).toFixed(1)} MiB, sockets ${before.sockets} -> ${after.sockets}`,
  );
  expect(after.heap - before.heap).toBeLessThan(HEAP_MARGIN_BYTES);
  expect(after.sockets).toBeLessThanOrEqual(before.sockets + SOCKET_MARGIN);
});
