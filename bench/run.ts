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
//   npm run bench -- --rows 2,3,T,P                the floor and the gateway beside the peers, Tailcall and Mesh
//
// After the rows: coalesced reads (a burst of identical reads), and incremental delivery (when the
// first and the last edge of apiKeys(first: 100) arrive, streamed and not, one request at a time).
//   npm run bench -- --node /path/to/node         every server on that Node binary (the load generator stays on this one)
//
// This file reads the command line and runs the parts in order; each part is a module named for
// what it measures, imported below (docs/performance.md, section Reproduce, walks through them).

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { measureCoalescedReads } from './coalesced-reads.js';
import { checkCompression } from './compression.js';
import { measureIncrementalDelivery } from './incremental-delivery.js';
import { nodeVersionOf, type PeerServer, startPeerServer, startServers, startTailcallServer, stopAll } from './processes.js';
import { type Results, reportLines } from './report.js';
import { allRows, PEER_ROWS, type Peers } from './rows.js';
import { targetLines } from './targets.js';
import { MB, measureRows, passed, summarise } from './throughput.js';

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
    /** Where the peers' files are (Mesh: package.json, lockfile, mesh config, OpenAPI; Tailcall: tailcall/). @default ../shared/peer */
    'peer-source': { type: 'string' },
    /** Leave the peers' rows out, Mesh's and Tailcall's (they are left out of --smoke unless --rows names them). */
    'skip-peer': { type: 'boolean', default: false },
    /**
     * Another build of the gateway to run beside this one as rows 3c, 4c and 5c, and beside each
     * shared-state gateway in its settings as rows 8ac, 8bc, 9ac and 9bc: a copy of
     * node_modules/.cache/vms-bench made before a change, kept under node_modules so that it
     * resolves the same packages.
     */
    compare: { type: 'string' },
    /** Node flags for the compared gateways only (the rows ending in c), e.g. to set V8 flags side by side with the defaults (with --compare node_modules/.cache/vms-bench). */
    'compare-flags': { type: 'string' },
    /** The Node binary (or a wrapper that execs one) for the compared gateway only. @default --node */
    'compare-node': { type: 'string' },
  },
});
/** A flag's number, or the run stops before it starts, naming the flag (0 rounds would measure nothing). */
function above0(flag: string, value: string, whole: boolean): number {
  const n = Number(value);
  if (n > 0 && (!whole || Number.isInteger(n))) return n;
  console.error(`--${flag} takes a ${whole ? 'whole number' : 'number'} above 0, not "${value}".`);
  process.exit(2);
}
const serverNode = args.node ?? process.execPath;
const rounds = above0('rounds', args.rounds ?? (args.smoke ? '1' : '3'), true);
const durationSeconds = above0('duration', args.duration ?? (args.smoke ? '0.3' : '5'), false);
const warmupSeconds = args.smoke ? 0 : Math.min(2, durationSeconds);
const connections = above0('connections', args.connections, true);
const gatewayFlags = args['gateway-flags'] ?? '';

const servers = await startServers({
  node: serverNode,
  gatewayFlags,
  profile: args.profile,
  allocations: args.allocations,
  compare: args.compare ? { build: args.compare, flags: args['compare-flags'] ?? gatewayFlags, node: args['compare-node'] } : undefined,
});
// Idle: after start-up, before any request.
const idleAtStartMB = (await servers.gateway.usage()).rssBytes / MB;

const chosen = args.rows?.split(',');
// The peers, on the same upstream and load, each in its own process. A peer runs when --rows names
// one of its rows, or in a run without --rows but not in --smoke (it installs packages the first
// time); never with --skip-peer.
const peerSource = args['peer-source'] ?? join(process.cwd(), '..', 'shared', 'peer');
const runsPeer = (peer: keyof Peers) => !args['skip-peer'] && (chosen ? PEER_ROWS[peer].some((id) => chosen.includes(id)) : !args.smoke);
const [mesh, tailcall] = await Promise.all([
  runsPeer('mesh') ? startPeerServer(peerSource, servers.upstream, serverNode) : undefined,
  runsPeer('tailcall') ? startTailcallServer(peerSource, servers.upstream) : undefined,
]);
const served = (peer: PeerServer | { note: string } | undefined) => (peer && 'server' in peer ? peer : undefined);
const peerNotes = [
  ...(args['skip-peer'] ? [`Peer rows (${Object.values(PEER_ROWS).flat().join(', ')}) skipped: --skip-peer.`] : []),
  ...[mesh, tailcall].flatMap((peer) => (peer && 'note' in peer ? [peer.note] : [])),
];

const everyRow = allRows(servers, { mesh: served(mesh), tailcall: served(tailcall) });
const rows = chosen ? everyRow.filter((row) => chosen.includes(row.id)) : everyRow;

const wireBytes = await checkCompression(everyRow);
const runs = await measureRows(servers.loader, rows, { rounds, durationSeconds, warmupSeconds, connections });
// Idle again: what the gateway keeps once the load has stopped (sockets closed, garbage collectable).
await new Promise((resolve) => setTimeout(resolve, args.smoke ? 100 : 3_000));
const idleAfterMB = (await servers.gateway.usage()).rssBytes / MB;
const bursts = await measureCoalescedReads(servers.slowGateway, servers.slowUpstream);
const incremental = await measureIncrementalDelivery(servers.slowGateway, servers.slowUpstream, args.smoke ? 2 : 40);
stopAll();
await servers.redis?.close();

const summary = summarise(runs);
const results: Results = {
  rounds,
  durationSeconds,
  connections,
  serverVersion: args.node ? nodeVersionOf(serverNode) : process.versions.node,
  rows,
  summary,
  wireBytes,
  idle: { atStartMB: idleAtStartMB, afterMB: idleAfterMB },
  peerNotes,
  redis: servers.redis !== undefined,
  bursts,
  incremental,
};
console.log([...reportLines(results), ...(chosen ? [] : targetLines(results))].join('\n'));

if (args.json) {
  await writeFile(
    args.json,
    JSON.stringify(
      {
        rounds,
        durationSeconds,
        connections,
        rows: rows.map((r) => ({ id: r.id, what: r.what, ...summary.get(r.id)!, answerBytes: wireBytes.get(r.id) ?? null })),
      },
      null,
      2,
    ),
  );
}
process.exitCode = passed(summary) ? 0 : 1;
