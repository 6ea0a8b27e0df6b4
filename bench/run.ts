// `npm run bench`: the gateway measured against its ceiling (the upstream alone) and its floor (the
// least a Node facade can do), side by side in one run. Every server and the load generator run in
// processes of their own on 127.0.0.1, compiled to JavaScript as production runs it: a TypeScript
// loader in the process would add its own CPU, memory and source-map lookups to every number.
// Rows run in alternating order over several rounds and the table quotes medians, because a
// shared 2-core machine is noisy.
//
//   npm run bench                                 3 rounds of 5 s per row, about three minutes
//   npm run bench -- --smoke                      1 round of 0.3 s per row, to show it still works
//   npm run bench -- --rounds 2 --duration 3 --json results.json
//   npm run bench -- --rows 2,3 --profile /tmp/profiles   then: npx tsx bench/profile-summary.ts FILE
//
// After the rows: coalesced reads (a burst of identical reads), and incremental delivery (when the
// first and the last edge of apiKeys(first: 100) arrive, streamed and not, one request at a time).
//   npm run bench -- --node /path/to/node         every server on that Node binary (the load generator stays on this one)

import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { request } from 'node:http';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { meros } from 'meros/browser';
import { type RedisServer, startRedis } from '../test/support/redis-server.js';
import type { LoadJob, LoadResult } from './load.js';
import { preparePeer, startPeer } from './peer.js';
import { apiKeys100, apiKeysQuery, createFolder, streamedApiKeys100 } from './queries.js';
import { ask, forkServer, type ServerProcess } from './servers.js';

const { values: args } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    duration: { type: 'string' },
    connections: { type: 'string', default: '50' },
    json: { type: 'string' },
    /** Only these rows, e.g. 2,3 (the compression check always runs). */
    rows: { type: 'string' },
    /** Write V8 CPU profiles of the gateway processes into this folder (node --cpu-prof). */
    profile: { type: 'string' },
    /** Write sampled allocation profiles of the gateway processes into this folder (freed objects included). */
    allocations: { type: 'string' },
    /** The Node binary every server runs on. @default this process's */
    node: { type: 'string' },
    /** Extra Node flags for the gateway processes, e.g. "--max-semi-space-size=2", to try a setting. */
    'gateway-flags': { type: 'string' },
    /** Where the peer's files are (package.json, lockfile, mesh config, OpenAPI). @default ../shared/peer */
    'peer-source': { type: 'string' },
    /** Leave the peer row out (it is left out of --smoke anyway). */
    'skip-peer': { type: 'boolean', default: false },
    /**
     * Another build of the gateway to run beside this one as rows 3c, 4c and 5c: a copy of
     * node_modules/.cache/vms-bench made before a change, kept under node_modules so that it
     * resolves the same packages.
     */
    compare: { type: 'string' },
    /** Node flags for the compared gateway only (rows 3c, 4c, 5c), e.g. to set V8 flags side by side with the defaults (with --compare node_modules/.cache/vms-bench). */
    'compare-flags': { type: 'string' },
    /** The Node binary (or a wrapper that execs one) for the compared gateway only. @default --node */
    'compare-node': { type: 'string' },
  },
});
const serverNode = args.node ?? process.execPath;
const rounds = Number(args.rounds ?? (args.smoke ? 1 : 3));
const durationSeconds = Number(args.duration ?? (args.smoke ? 0.3 : 5));
const warmupSeconds = args.smoke ? 0 : Math.min(2, durationSeconds);
const connections = Number(args.connections);
const TOKEN = 'Bearer sandbox-token';
const UPSTREAM_LATENCY_MS = 20;
const WARMUP_CONNECTIONS = 50;

// --- processes --------------------------------------------------------------

type Proc = ServerProcess;

const children: ChildProcess[] = [];

function start(
  name: string,
  file: string | URL,
  env: Record<string, string> = {},
  gatewayFlags?: string,
  execPath = serverNode,
): Promise<Proc> {
  const isGateway = gatewayFlags !== undefined;
  return forkServer(name, file, {
    execPath,
    execArgv: [
      ...(isGateway && args.profile ? ['--cpu-prof', `--cpu-prof-dir=${args.profile}`] : []),
      ...(gatewayFlags ? gatewayFlags.split(' ') : []),
    ],
    env: { ...env, ...(isGateway && args.allocations ? { BENCH_ALLOCATIONS: resolve(args.allocations) } : {}) },
    track: children,
  });
}

const stopAll = () => {
  for (const child of children) if (child.connected) child.disconnect();
};
process.once('SIGINT', () => {
  stopAll();
  process.exit(130);
});

// --- rows --------------------------------------------------------------------

interface Row {
  id: string;
  what: string;
  server: Proc;
  job: Omit<LoadJob, 'connections' | 'durationSeconds'>;
}

function graphql(server: Proc, query: string, headers: Record<string, string> = {}): Row['job'] {
  return {
    url: `http://127.0.0.1:${server.port}/graphql`,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization: TOKEN, ...headers },
    body: JSON.stringify({ query }),
    expectGraphQLData: !headers['accept-encoding'],
    callerPerConnection: true,
  };
}

function rest(server: Proc): Row['job'] {
  return {
    url: `http://127.0.0.1:${server.port}/v2/api_keys?limit=25`,
    method: 'GET',
    headers: { authorization: TOKEN },
    expectGraphQLData: false,
  };
}

// --- measuring -----------------------------------------------------------------

interface Measurement extends LoadResult {
  cpuMicrosPerRequest: number;
  peakRssMB: number;
  /** V8 heap in use, and memory outside it (buffers, native), when RSS peaked. */
  heapAtPeakMB: number;
  externalAtPeakMB: number;
}

async function measure(load: ChildProcess, row: Row, seconds: number): Promise<Measurement> {
  const before = await row.server.usage();
  const result = await ask<LoadResult>(load, { ...row.job, connections, durationSeconds: seconds }, 'result');
  const after = await row.server.usage();
  return {
    ...result,
    cpuMicrosPerRequest: (after.cpuMicros - before.cpuMicros) / Math.max(1, result.requests),
    peakRssMB: after.peakRssBytes / MB,
    heapAtPeakMB: after.atPeak.heapUsedBytes / MB,
    externalAtPeakMB: after.atPeak.externalBytes / MB,
  };
}

const MB = 2 ** 20;

/** One answer's body as sent on the wire, and decoded. */
function fetchRaw(job: Row['job']): Promise<{ wireBytes: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(job.url, { method: job.method, headers: job.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const wire = Buffer.concat(chunks);
        const encoding = res.headers['content-encoding'];
        const decoded = encoding === 'gzip' ? gunzipSync(wire) : wire;
        resolve({ wireBytes: wire.length, text: decoded.toString() });
      });
    });
    req.on('error', reject);
    req.end(job.body);
  });
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

// --- the run ---------------------------------------------------------------------

const [upstream, slowUpstream] = await Promise.all([
  start('upstream', './upstream.js'),
  // 100 keys, so that apiKeys(first: 100) takes four pages for the incremental delivery timings.
  start('upstream (20 ms)', './upstream.js', { LATENCY_MS: String(UPSTREAM_LATENCY_MS), API_KEYS: '100' }),
]);
const loader = fork(new URL('./load.js', import.meta.url), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
children.push(loader);
const upstreamUrl = (p: Proc) => `http://127.0.0.1:${p.port}/v2`;
// A Redis of the run's own for the shared-state rows, where redis-server is installed.
const redis: RedisServer | undefined = await startRedis().catch(() => undefined);
const CACHED = { CACHE_TTL_MS: '3600000' };
const [floor, slowFloor, gateway, slowGateway, otherGateway] = await Promise.all([
  start('floor', './floor.js', { UPSTREAM_URL: upstreamUrl(upstream) }),
  start('floor (20 ms)', './floor.js', { UPSTREAM_URL: upstreamUrl(slowUpstream) }),
  start('gateway', './gateway.js', { UPSTREAM_URL: upstreamUrl(upstream) }, args['gateway-flags'] ?? ''),
  start('gateway (20 ms)', './gateway.js', { UPSTREAM_URL: upstreamUrl(slowUpstream) }, args['gateway-flags'] ?? ''),
  args.compare
    ? start(
        'gateway (compared)',
        pathToFileURL(resolve(args.compare, 'bench', 'gateway.js')),
        { UPSTREAM_URL: upstreamUrl(upstream) },
        args['compare-flags'] ?? args['gateway-flags'] ?? '',
        args['compare-node'],
      )
    : undefined,
]);

// The shared state's gateways: the read cache in process and in Redis, the rate limit off and in Redis.
const gatewayWith = (name: string, env: Record<string, string>, upstreamOf = upstream) =>
  start(`gateway (${name})`, './gateway.js', { UPSTREAM_URL: upstreamUrl(upstreamOf), ...env }, args['gateway-flags'] ?? '');
const [cachingGateway, unlimitedGateway] = await Promise.all([
  gatewayWith('read cache', CACHED),
  gatewayWith('no rate limit', { RATE_LIMIT_OPERATIONS: '0' }),
]);
const [redisCachingGateway, redisLimitingGateway] = redis
  ? await Promise.all([
      gatewayWith('read cache in Redis', { ...CACHED, REDIS_URL: redis.url }),
      gatewayWith('rate limit in Redis', { REDIS_URL: redis.url }),
    ])
  : [undefined, undefined];

// Idle: after start-up, before any request.
const idleAtStartMB = (await gateway.usage()).rssBytes / MB;

// The peer, on the same upstream and load, in its own process (never in --smoke: it installs packages).
let peerNote: string | undefined;
let peer: Proc | undefined;
let peerQuery = '';
if (!args.smoke && !args['skip-peer']) {
  const prepared = preparePeer(args['peer-source'] ?? join(process.cwd(), '..', 'shared', 'peer'));
  if ('skipped' in prepared) peerNote = `Peer row skipped: ${prepared.skipped}.`;
  else {
    const started = await startPeer(prepared.dir, upstreamUrl(upstream), serverNode);
    children.push(started.child);
    peer = { child: started.child, port: started.port, usage: async () => started.usage() };
    peerQuery = prepared.query;
  }
}

/** Rows 3, 4 and 5 of a gateway: one page of keys, four upstream pages, a mutation. */
const gatewayRows = (server: Proc, suffix: string, label: string): Row[] => [
  { id: `3${suffix}`, what: `${label}: apiKeys(first: 25)`, server, job: graphql(server, apiKeysQuery(25)) },
  { id: `4${suffix}`, what: `${label}: apiKeys(first: 100), all 62 keys in 3 upstream pages`, server, job: graphql(server, apiKeys100) },
  { id: `5${suffix}`, what: `${label}: createFolder`, server, job: graphql(server, createFolder) },
];

const allRows: Row[] = [
  { id: '1', what: 'direct REST: GET /v2/api_keys?limit=25 (ceiling)', server: upstream, job: rest(upstream) },
  { id: '2', what: 'floor: minimal Node proxy, same page', server: floor, job: graphql(floor, apiKeysQuery(25)) },
  ...gatewayRows(gateway, '', 'gateway'),
  {
    id: '4s',
    what: 'gateway: apiKeys(first: 100), edges streamed (multipart/mixed)',
    server: gateway,
    // Parts, not one JSON body: the timings below check a streamed answer whole.
    job: { ...graphql(gateway, streamedApiKeys100, { accept: 'multipart/mixed' }), expectGraphQLData: false },
  },
  ...(otherGateway ? gatewayRows(otherGateway, 'c', 'compared gateway') : []),
  { id: '6a', what: `direct REST, upstream +${UPSTREAM_LATENCY_MS} ms`, server: slowUpstream, job: rest(slowUpstream) },
  {
    id: '6b',
    what: `gateway: apiKeys(first: 25), upstream +${UPSTREAM_LATENCY_MS} ms`,
    server: slowGateway,
    job: graphql(slowGateway, apiKeysQuery(25)),
  },
  {
    id: '6c',
    what: `floor, upstream +${UPSTREAM_LATENCY_MS} ms`,
    server: slowFloor,
    job: graphql(slowFloor, apiKeysQuery(25)),
  },
  ...(peer
    ? [
        {
          id: 'P',
          what: 'peer: Hive Gateway + Mesh over OpenAPI, listApiKeys(limit: 25), same page',
          server: peer,
          job: graphql(peer, peerQuery),
        },
      ]
    : []),
  {
    id: '8a',
    what: 'gateway: apiKeys(first: 25), read cache hit, in process',
    server: cachingGateway,
    job: graphql(cachingGateway, apiKeysQuery(25)),
  },
  {
    id: '9a',
    what: 'gateway: apiKeys(first: 25), rate limit off',
    server: unlimitedGateway,
    job: graphql(unlimitedGateway, apiKeysQuery(25)),
  },
  ...(redisCachingGateway && redisLimitingGateway
    ? [
        {
          id: '8b',
          what: 'gateway: apiKeys(first: 25), read cache hit, in Redis',
          server: redisCachingGateway,
          job: graphql(redisCachingGateway, apiKeysQuery(25)),
        },
        {
          id: '9b',
          what: 'gateway: apiKeys(first: 25), rate limit counted in Redis',
          server: redisLimitingGateway,
          job: graphql(redisLimitingGateway, apiKeysQuery(25)),
        },
      ]
    : []),
  {
    id: '7a',
    what: 'gateway: apiKeys(first: 100), gzip',
    server: gateway,
    job: graphql(gateway, apiKeys100, { 'accept-encoding': 'gzip' }),
  },
  {
    id: '7b',
    what: 'gateway: apiKeys(first: 25), gzip',
    server: gateway,
    job: graphql(gateway, apiKeysQuery(25), { 'accept-encoding': 'gzip' }),
  },
];
const chosen = args.rows?.split(',');
const rows = chosen ? allRows.filter((row) => chosen.includes(row.id)) : allRows;
/** Each compressed row and the uncompressed row it is compared with. */
const compressed = new Map([
  ['7a', '4'],
  ['7b', '3'],
]);

// Compressed answers are checked here, once, by decoding them: the load generator sees only bytes.
const byId = (id: string) => allRows.find((row) => row.id === id)!;
const wireBytes = new Map<string, number>();
for (const [id, baseId] of compressed) {
  const [answer, plain] = await Promise.all([fetchRaw(byId(id).job), fetchRaw(byId(baseId).job)]);
  wireBytes.set(baseId, plain.wireBytes);
  if (answer.text !== plain.text) throw new Error(`row ${id}: the decoded answer differs from the uncompressed one`);
  if (answer.wireBytes >= plain.wireBytes)
    throw new Error(
      `row ${id}: the answer was not compressed (${answer.wireBytes} bytes against ${plain.wireBytes}): ${answer.text.slice(0, 300)}`,
    );
  wireBytes.set(id, answer.wireBytes);
}

// Warm-up at full load whatever --connections says: at 1 connection a process would still be
// compiling its hot paths during the measured rounds, as a long-running server no longer is.
if (warmupSeconds > 0)
  for (const row of rows)
    await ask<LoadResult>(loader, { ...row.job, connections: WARMUP_CONNECTIONS, durationSeconds: warmupSeconds }, 'result');
const runs = new Map<string, Measurement[]>(rows.map((row) => [row.id, []]));
for (let round = 0; round < rounds; round++) {
  for (const row of round % 2 === 0 ? rows : [...rows].reverse()) runs.get(row.id)!.push(await measure(loader, row, durationSeconds));
}
// Idle again: what the gateway keeps once the load has stopped (sockets closed, garbage collectable).
await new Promise((resolve) => setTimeout(resolve, args.smoke ? 100 : 3_000));
const idleAfterMB = (await gateway.usage()).rssBytes / MB;

// Coalesced reads: a burst of identical reads at once over the 20 ms upstream, from one caller (one
// upstream call shared) and from as many callers (one call each), upstream calls and p50 compared.
const BURST = 50;
const burst = async (tokens: string[]) => {
  const count = async () => Number(await (await fetch(`http://127.0.0.1:${slowUpstream.port}/requests`)).text());
  const before = await count();
  const times = await Promise.all(
    tokens.map(async (token) => {
      const started = performance.now();
      const job = graphql(slowGateway, apiKeysQuery(25), { authorization: token });
      await (await fetch(job.url, { method: 'POST', headers: job.headers, body: job.body })).arrayBuffer();
      return performance.now() - started;
    }),
  );
  return { upstreamCalls: (await count()) - before, p50Ms: median(times) };
};
const oneCaller = Array.from({ length: BURST }, () => TOKEN);
const manyCallers = Array.from({ length: BURST }, (_, i) => `${TOKEN}-${i}`);
// Warmed up first (the slow gateway may not have served a row), then each kind twice, alternating.
await burst(manyCallers);
const measured = { oneCaller: [] as Array<Awaited<ReturnType<typeof burst>>>, manyCallers: [] as Array<Awaited<ReturnType<typeof burst>>> };
for (let round = 0; round < 2; round++) {
  measured.oneCaller.push(await burst(oneCaller));
  measured.manyCallers.push(await burst(manyCallers));
}
const middle = (runs: Array<Awaited<ReturnType<typeof burst>>>) => ({
  upstreamCalls: median(runs.map((run) => run.upstreamCalls)),
  p50Ms: median(runs.map((run) => run.p50Ms)),
});
const bursts = { oneCaller: middle(measured.oneCaller), manyCallers: middle(measured.manyCallers) };
// Incremental delivery: apiKeys(first: 100) over the 20 ms upstream (four pages of 25), one request
// at a time, streamed and not: when the first and the last of its edges reach the client, beside
// one upstream page fetched directly. The three alternate, so that drift touches them alike.
const STREAM_SAMPLES = args.smoke ? 2 : 40;
const timeDirectPage = async () => {
  const started = performance.now();
  const job = rest(slowUpstream);
  await (await fetch(job.url, { headers: job.headers })).arrayBuffer();
  return performance.now() - started;
};
const timeUnstreamed = async (first: number) => {
  const started = performance.now();
  const job = graphql(slowGateway, first === 100 ? apiKeys100 : apiKeysQuery(first));
  const answer = (await (await fetch(job.url, { method: 'POST', headers: job.headers, body: job.body })).json()) as {
    data?: { apiKeys?: { edges?: unknown[] } };
  };
  if (answer.data?.apiKeys?.edges?.length !== first)
    throw new Error(`unstreamed apiKeys(first: ${first}): ${JSON.stringify(answer).slice(0, 300)}`);
  return performance.now() - started;
};
const timeStreamed = async () => {
  const started = performance.now();
  const job = graphql(slowGateway, streamedApiKeys100, { accept: 'multipart/mixed' });
  const parts = await meros<{
    data?: { apiKeys?: { edges?: unknown[] } };
    incremental?: Array<{ items?: unknown[]; path: unknown[] }>;
    errors?: unknown;
  }>(await fetch(job.url, { method: 'POST', headers: job.headers, body: job.body }));
  if (parts instanceof Response) throw new Error(`streamed apiKeys(first: 100) came whole: ${(await parts.text()).slice(0, 300)}`);
  let edges = 0;
  let first = Number.NaN;
  let last = Number.NaN;
  for await (const { body } of parts) {
    if (typeof body === 'string' || body.errors) throw new Error(`streamed apiKeys(first: 100): ${JSON.stringify(body).slice(0, 300)}`);
    edges += body.data?.apiKeys?.edges?.length ?? 0;
    for (const increment of body.incremental ?? []) if (increment.path[1] === 'edges') edges += increment.items?.length ?? 0;
    if (edges > 0 && Number.isNaN(first)) first = performance.now() - started;
    if (edges === 100 && Number.isNaN(last)) last = performance.now() - started;
  }
  if (edges !== 100) throw new Error(`streamed apiKeys(first: 100) sent ${edges} edges`);
  return { first, last };
};
const incremental = {
  direct: [] as number[],
  page: [] as number[],
  unstreamed: [] as number[],
  first: [] as number[],
  last: [] as number[],
};
for (let i = 0; i < STREAM_SAMPLES; i++) {
  incremental.direct.push(await timeDirectPage());
  incremental.page.push(await timeUnstreamed(25));
  incremental.unstreamed.push(await timeUnstreamed(100));
  const { first, last } = await timeStreamed();
  incremental.first.push(first);
  incremental.last.push(last);
}
stopAll();
await redis?.close();
peer?.child.kill();

// --- the table ---------------------------------------------------------------------

type Summary = Record<keyof Measurement, number>;
const summary = new Map<string, Summary>();
for (const [id, measurements] of runs) {
  const keys = Object.keys(measurements[0]!) as (keyof Measurement)[];
  const counts = new Set<keyof Measurement>(['non2xx', 'transportErrors', 'graphqlErrors']);
  summary.set(
    id,
    Object.fromEntries(
      keys.map((k) => [k, counts.has(k) ? measurements.reduce((s, m) => s + m[k], 0) : median(measurements.map((m) => m[k]))]),
    ) as Summary,
  );
}
const s = (id: string) => summary.get(id)!;
const fixed = (n: number, digits = 0) => n.toFixed(digits);

const serverVersion = args.node
  ? execFileSync(serverNode, ['--version'], { encoding: 'utf8' }).trim().replace(/^v/, '')
  : process.versions.node;
const lines = [
  `Machine: ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.`,
  `Servers on Node ${serverVersion}. ${rounds} round(s) of ${durationSeconds} s per row, ${connections} connections, order alternating by round; medians (error counts are sums).`,
  '',
  '| Row | What | req/s | p50 ms | p99 ms | CPU µs/req | Peak RSS MB | heap / external MB at peak | non-2xx | errors | Answer bytes |',
  '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rows.map((row) => {
    const m = s(row.id);
    const bytes = wireBytes.get(row.id);
    return `| ${row.id} | ${row.what} | ${fixed(m.requestsPerSecond)} | ${fixed(m.p50Ms, 2)} | ${fixed(m.p99Ms, 2)} | ${fixed(m.cpuMicrosPerRequest)} | ${fixed(m.peakRssMB)} | ${Number.isNaN(m.heapAtPeakMB) ? '—' : `${fixed(m.heapAtPeakMB)} / ${fixed(m.externalAtPeakMB)}`} | ${m.non2xx} | ${m.transportErrors + m.graphqlErrors} | ${bytes ?? ''} |`;
  }),
  '',
  `Gateway RSS idle: ${fixed(idleAtStartMB)} MB after start-up, ${fixed(idleAfterMB)} MB 3 s after the load.`,
];
if (peerNote) lines.push('', peerNote);
if (!redis) lines.push('', 'Rows 8b and 9b skipped: no redis-server on PATH.');
lines.push(
  '',
  `Coalesced reads, ${BURST} identical apiKeys(first: 25) at once over the ${UPSTREAM_LATENCY_MS} ms upstream: one caller ${bursts.oneCaller.upstreamCalls} upstream call(s), p50 ${fixed(bursts.oneCaller.p50Ms, 1)} ms; ${BURST} callers ${bursts.manyCallers.upstreamCalls} upstream calls, p50 ${fixed(bursts.manyCallers.p50Ms, 1)} ms.`,
);
const quantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!;
const p50p90 = (values: number[]) => `${fixed(median(values), 1)} (${fixed(quantile(values, 0.9), 1)})`;
lines.push(
  '',
  `Incremental delivery, apiKeys(first: 100) over the ${UPSTREAM_LATENCY_MS} ms upstream (4 pages), ${STREAM_SAMPLES} requests one at a time, ms p50 (p90): ` +
    `one upstream page direct ${p50p90(incremental.direct)}, through the gateway (apiKeys(first: 25)) ${p50p90(incremental.page)}; ` +
    `unstreamed, every edge at ${p50p90(incremental.unstreamed)}; ` +
    `streamed, the first edge at ${p50p90(incremental.first)} and the last at ${p50p90(incremental.last)}; ` +
    `the gateway's time to the first edge beyond one upstream page, p50 ${fixed(median(incremental.first) - median(incremental.direct), 2)} ms.`,
);
if (summary.has('P') && summary.has('3')) {
  const [g, p] = [s('3'), s('P')];
  lines.push(
    '',
    `Gateway ÷ peer (row 3 ÷ row P, same page of 25 keys): req/s ${fixed(g.requestsPerSecond / p.requestsPerSecond, 2)}, CPU µs/req ${fixed(g.cpuMicrosPerRequest / p.cpuMicrosPerRequest, 2)}, p50 ${fixed(g.p50Ms / p.p50Ms, 2)}, p99 ${fixed(g.p99Ms / p.p99Ms, 2)}, peak RSS ${fixed(g.peakRssMB / p.peakRssMB, 2)}.`,
  );
}

const failures = [...summary.values()].reduce((sum, m) => sum + m.non2xx + m.transportErrors + m.graphqlErrors, 0);
// The targets compare rows with each other, so they need the full set.
if (!chosen) {
  const cpuRatio = s('3').cpuMicrosPerRequest / s('2').cpuMicrosPerRequest;
  const rpsRatio = s('3').requestsPerSecond / s('2').requestsPerSecond;
  const addedP50 = s('6b').p50Ms - s('6a').p50Ms;
  const addedP99 = s('6b').p99Ms - s('6a').p99Ms;
  const peakRss = Math.max(...['3', '4', '5', '6b', ...compressed.keys()].map((id) => s(id).peakRssMB));
  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const targets = [
    ['Gateway CPU per request ÷ floor (row 3 ÷ row 2), at most 2', fixed(cpuRatio, 2), cpuRatio <= 2],
    ['Gateway req/s ÷ floor (row 3 ÷ row 2), at least 0.6', fixed(rpsRatio, 2), rpsRatio >= 0.6],
    [`Added p50 at +${UPSTREAM_LATENCY_MS} ms upstream (6b − 6a), under 1 ms`, `${fixed(addedP50, 2)} ms`, addedP50 < 1],
    [`Added p99 at +${UPSTREAM_LATENCY_MS} ms upstream (6b − 6a), under 5 ms`, `${fixed(addedP99, 2)} ms`, addedP99 < 5],
    ['Gateway peak RSS under load, below 150 MB', `${fixed(peakRss)} MB`, peakRss < 150],
    ['Gateway idle RSS, below 80 MB', `${fixed(Math.max(idleAtStartMB, idleAfterMB))} MB`, Math.max(idleAtStartMB, idleAfterMB) < 80],
    ['non-2xx answers and errors, 0', String(failures), failures === 0],
  ] as const;
  lines.push(
    '',
    '| Target | Measured | |',
    '|---|---:|---|',
    ...targets.map(([what, value, ok]) => `| ${what} | ${value} | ${verdict(ok)} |`),
  );
  lines.push('');
  for (const [id, baseId] of compressed) {
    const extra = s(id).cpuMicrosPerRequest - s(baseId).cpuMicrosPerRequest;
    const saved = 1 - wireBytes.get(id)! / wireBytes.get(baseId)!;
    lines.push(
      `Compression, row ${id} against row ${baseId}: ${extra >= 0 ? '+' : ''}${fixed(extra)} CPU µs per answer, ${fixed(saved * 100)}% fewer bytes (${wireBytes.get(baseId)} → ${wireBytes.get(id)}).`,
    );
  }
}
console.log(lines.join('\n'));

if (args.json) {
  const { writeFile } = await import('node:fs/promises');
  await writeFile(
    args.json,
    JSON.stringify(
      {
        rounds,
        durationSeconds,
        connections,
        rows: rows.map((r) => ({ id: r.id, what: r.what, ...s(r.id), answerBytes: wireBytes.get(r.id) ?? null })),
      },
      null,
      2,
    ),
  );
}
process.exitCode = failures === 0 ? 0 : 1;
