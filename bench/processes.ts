// The processes `npm run bench` starts, each of its own on 127.0.0.1 and compiled to JavaScript as
// production runs it: two upstreams (one answering at once, one 20 ms late), a floor and a gateway
// on each, the gateways of the shared-state rows, the compared gateway (--compare), a Redis of the
// run's own where redis-server is installed, the load generator, and the peers (Mesh, Tailcall).

import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type RedisServer, startRedis } from '../test/support/redis-server.js';
import { type PeerProcess, preparePeer, startPeer } from './peer.js';
import { forkServer, type ServerProcess } from './servers.js';
import { prepareTailcall, startTailcall } from './tailcall.js';

/** How late the slow upstream answers. */
export const UPSTREAM_LATENCY_MS = 20;

interface ProcessOptions {
  /** The Node binary every server runs on (--node). */
  node: string;
  /** Extra Node flags for the gateway processes (--gateway-flags). */
  gatewayFlags: string;
  /** The folder of the gateways' V8 CPU profiles (--profile). */
  profile?: string;
  /** The folder of the gateways' sampled allocation profiles (--allocations). */
  allocations?: string;
  /** Another build of the gateway, its Node flags and its Node binary (--compare, --compare-flags, --compare-node). */
  compare?: { build: string; flags: string; node?: string };
}

export interface Servers {
  upstream: ServerProcess;
  /** The upstream answering UPSTREAM_LATENCY_MS late, with 100 keys. */
  slowUpstream: ServerProcess;
  floor: ServerProcess;
  slowFloor: ServerProcess;
  gateway: ServerProcess;
  slowGateway: ServerProcess;
  comparedGateway?: ServerProcess;
  /** The compared build (--compare) in each setting of the shared state's gateways, by the gateway it is compared with: rows 8ac, 8bc, 9ac, 9bc. */
  compared: Map<ServerProcess, ServerProcess>;
  /** The shared state's gateways: the read cache in process and in Redis, the rate limit off and in Redis. */
  cachingGateway: ServerProcess;
  unlimitedGateway: ServerProcess;
  /** The gateway as WORKERS=2 runs it: a primary and two workers, measured together. */
  workersGateway: ServerProcess;
  redisCachingGateway?: ServerProcess;
  redisLimitingGateway?: ServerProcess;
  /** The load generator (bench/load.ts). */
  loader: ChildProcess;
  /** Absent where redis-server is not installed. */
  redis?: RedisServer;
}

/** Every process the run forks, so that all can be let go at the end or on Ctrl-C, even before they listen. */
const children: ChildProcess[] = [];
/** The peers, which speak no IPC: each is stopped by its PID. */
const peers: ChildProcess[] = [];

/** Lets every process go: each forked one exits once its IPC channel closes, each peer is killed. */
export function stopAll(): void {
  for (const child of children) if (child.connected) child.disconnect();
  stopPeers();
}

function stopPeers(): void {
  for (const peer of peers) if (peer.exitCode === null && peer.signalCode === null && !peer.killed) peer.kill();
}
// A run that ends on an error leaves no peer running either (the forked processes exit when their IPC channel closes).
process.once('exit', stopPeers);

/** Starts every server, the load generator and Redis, in the order (and the parallel groups) a run has always used. */
export async function startServers(options: ProcessOptions): Promise<Servers> {
  process.once('SIGINT', () => {
    stopAll();
    process.exit(130);
  });
  const start = (name: string, file: string | URL, env: Record<string, string> = {}, gatewayFlags?: string, execPath = options.node) => {
    const isGateway = gatewayFlags !== undefined;
    return forkServer(name, file, {
      execPath,
      execArgv: [
        ...(isGateway && options.profile ? ['--cpu-prof', `--cpu-prof-dir=${options.profile}`] : []),
        ...(gatewayFlags ? gatewayFlags.split(' ') : []),
      ],
      env: { ...env, ...(isGateway && options.allocations ? { BENCH_ALLOCATIONS: resolve(options.allocations) } : {}) },
      track: children,
    });
  };

  const [upstream, slowUpstream] = await Promise.all([
    start('upstream', './upstream.js'),
    // 100 keys, so that apiKeys(first: 100) takes four pages for the incremental delivery timings.
    start('upstream (20 ms)', './upstream.js', { LATENCY_MS: String(UPSTREAM_LATENCY_MS), API_KEYS: '100' }),
  ]);
  const loader = fork(new URL('./load.js', import.meta.url), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.push(loader);
  // A Redis of the run's own for the shared-state rows, where redis-server is installed.
  const redis = await startRedis().catch(() => undefined);
  const CACHED = { CACHE_TTL_MS: '3600000' };
  const [floor, slowFloor, gateway, slowGateway, comparedGateway] = await Promise.all([
    start('floor', './floor.js', { UPSTREAM_URL: upstreamUrl(upstream) }),
    start('floor (20 ms)', './floor.js', { UPSTREAM_URL: upstreamUrl(slowUpstream) }),
    start('gateway', './gateway.js', { UPSTREAM_URL: upstreamUrl(upstream) }, options.gatewayFlags),
    start('gateway (20 ms)', './gateway.js', { UPSTREAM_URL: upstreamUrl(slowUpstream) }, options.gatewayFlags),
    options.compare
      ? start(
          'gateway (compared)',
          pathToFileURL(resolve(options.compare.build, 'bench', 'gateway.js')),
          { UPSTREAM_URL: upstreamUrl(upstream) },
          options.compare.flags,
          options.compare.node,
        )
      : undefined,
  ]);

  const compared = new Map<ServerProcess, ServerProcess>();
  /** A gateway with these settings, and the compared build beside it with the same (where there is one). */
  const gatewayWith = async (name: string, env: Record<string, string>, twin = true) => {
    const settings = { UPSTREAM_URL: upstreamUrl(upstream), ...env };
    const [main, other] = await Promise.all([
      start(`gateway (${name})`, './gateway.js', settings, options.gatewayFlags),
      options.compare && twin
        ? start(
            `gateway (compared, ${name})`,
            pathToFileURL(resolve(options.compare.build, 'bench', 'gateway.js')),
            settings,
            options.compare.flags,
            options.compare.node,
          )
        : undefined,
    ]);
    if (other) compared.set(main, other);
    return main;
  };
  const [cachingGateway, unlimitedGateway, workersGateway] = await Promise.all([
    gatewayWith('read cache', CACHED),
    // Under both names, so that a compared build from before RATE_LIMIT was named so turns it off too.
    gatewayWith('no rate limit', { RATE_LIMIT: '0', RATE_LIMIT_OPERATIONS: '0' }),
    gatewayWith('WORKERS=2', { WORKERS: '2' }, false),
  ]);
  const [redisCachingGateway, redisLimitingGateway] = redis
    ? await Promise.all([
        // One key prefix each, so that the compared gateway finds none of the main one's answers.
        gatewayWith('read cache in Redis', { ...CACHED, REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'bench-main:' }),
        gatewayWith('rate limit in Redis', { REDIS_URL: redis.url }),
      ])
    : [undefined, undefined];
  return {
    upstream,
    slowUpstream,
    floor,
    slowFloor,
    gateway,
    slowGateway,
    comparedGateway,
    compared,
    cachingGateway,
    unlimitedGateway,
    workersGateway,
    redisCachingGateway,
    redisLimitingGateway,
    loader,
    redis,
  };
}

const upstreamUrl = (upstream: ServerProcess) => `http://127.0.0.1:${upstream.port}/v2`;

/** The Mesh peer (bench/peer.ts), serving the same upstream; or why its rows are left out. */
export function startPeerServer(source: string, upstream: ServerProcess, node: string): Promise<PeerServer | { note: string }> {
  const prepared = preparePeer(source);
  if ('skipped' in prepared) return Promise.resolve({ note: `Peer rows skipped: ${prepared.skipped}.` });
  return peerServer('Peer', prepared.query, startPeer(prepared.dir, upstreamUrl(upstream), node, peers));
}

/** Tailcall (bench/tailcall.ts), serving the same upstream; or why its rows are left out. */
export function startTailcallServer(source: string, upstream: ServerProcess): Promise<PeerServer | { note: string }> {
  const prepared = prepareTailcall(source);
  if ('skipped' in prepared) return Promise.resolve({ note: `Tailcall rows skipped: ${prepared.skipped}.` });
  return peerServer('Tailcall', prepared.query, startTailcall(prepared, upstreamUrl(upstream), peers));
}

export interface PeerServer {
  server: ServerProcess;
  /** Its list query, apiKeys(first: 25)'s equivalent in its own schema. */
  query: string;
}

/** A peer once it answers, or why its rows are skipped when it could not be started. */
async function peerServer(name: string, query: string, started: Promise<PeerProcess>): Promise<PeerServer | { note: string }> {
  try {
    const { child, port, usage } = await started;
    return { server: { child, port, usage: async () => usage() }, query };
  } catch (error) {
    return { note: `${name} rows skipped: ${error instanceof Error ? error.message : String(error)}.` };
  }
}

/** The Node version the servers run on, as `--version` prints it without the v. */
export const nodeVersionOf = (node: string) => execFileSync(node, ['--version'], { encoding: 'utf8' }).trim().replace(/^v/, '');
