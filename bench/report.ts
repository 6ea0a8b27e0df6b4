// What `npm run bench` prints: the throughput table, the gateway's idle RSS, the coalesced reads,
// the incremental delivery timings and the gateway beside the peer (bench/targets.ts adds the targets).

import { cpus } from 'node:os';
import { BURST, type Burst } from './coalesced-reads.js';
import type { IncrementalTimings } from './incremental-delivery.js';
import { UPSTREAM_LATENCY_MS } from './processes.js';
import { PEER_ROWS, type Row } from './rows.js';
import { median, quantile } from './statistics.js';
import type { Summary } from './throughput.js';

/** Everything a run measured. */
export interface Results {
  rounds: number;
  durationSeconds: number;
  connections: number;
  /** The Node version the servers ran on. */
  serverVersion: string;
  /** The rows measured, in the table's order. */
  rows: Array<Pick<Row, 'id' | 'what'>>;
  summary: Map<string, Summary>;
  /** Answer bytes on the wire of the compressed rows and of the rows they are compared with. */
  wireBytes: Map<string, number>;
  /** The gateway's RSS after start-up and after the load. */
  idle: { atStartMB: number; afterMB: number };
  /** Why a peer's rows are left out, for each that is. */
  peerNotes: string[];
  /** Whether the Redis rows ran. */
  redis: boolean;
  bursts: { oneCaller: Burst; manyCallers: Burst };
  incremental: IncrementalTimings;
}

/** A figure to `digits` decimals, or — where there is none (a row that measured nothing, a peer's heap). */
export const fixed = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '—');

/** The table and the lines after it, without the targets. */
export function reportLines(results: Results): string[] {
  const { summary, wireBytes, idle, bursts, incremental } = results;
  const s = (id: string) => summary.get(id)!;
  const unmeasured = results.rows.filter(({ id }) => s(id).unmeasured !== undefined);
  const lines = [
    `Machine: ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.`,
    `Servers on Node ${results.serverVersion}. ${results.rounds} round(s) of ${results.durationSeconds} s per row, ${results.connections} connections, order alternating by round; medians (error counts are sums).`,
    '',
    '| Row | What | req/s | p50 ms | p99 ms | CPU µs/req | Peak RSS MB | heap / external MB at peak | non-2xx | errors | Answer bytes |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...results.rows.map((row) => {
      const m = s(row.id);
      const bytes = wireBytes.get(row.id);
      return `| ${row.id} | ${row.what} | ${fixed(m.requestsPerSecond)} | ${fixed(m.p50Ms, 2)} | ${fixed(m.p99Ms, 2)} | ${fixed(m.cpuMicrosPerRequest)} | ${fixed(m.peakRssMB)} | ${Number.isNaN(m.heapAtPeakMB) ? '—' : `${fixed(m.heapAtPeakMB)} / ${fixed(m.externalAtPeakMB)}`} | ${m.non2xx} | ${m.transportErrors + m.graphqlErrors} | ${bytes ?? ''} |`;
    }),
    ...(unmeasured.length > 0
      ? ['', ...unmeasured.map(({ id, what }) => `Row ${id} (${what}) ${s(id).unmeasured}: it has no figures, and the run fails.`)]
      : []),
    '',
    `Gateway RSS idle: ${fixed(idle.atStartMB)} MB after start-up, ${fixed(idle.afterMB)} MB 3 s after the load.`,
  ];
  if (results.peerNotes.length > 0) lines.push('', ...results.peerNotes);
  if (!results.redis) lines.push('', 'Rows 8b and 9b skipped: no redis-server on PATH.');
  lines.push(
    '',
    `Coalesced reads, ${BURST} identical apiKeys(first: 25) at once over the ${UPSTREAM_LATENCY_MS} ms upstream: one caller ${bursts.oneCaller.upstreamCalls} upstream call(s), p50 ${fixed(bursts.oneCaller.p50Ms, 1)} ms; ${BURST} callers ${bursts.manyCallers.upstreamCalls} upstream calls, p50 ${fixed(bursts.manyCallers.p50Ms, 1)} ms.`,
  );
  const p50p90 = (values: number[]) => `${fixed(median(values), 1)} (${fixed(quantile(values, 0.9), 1)})`;
  lines.push(
    '',
    `Incremental delivery, apiKeys(first: 100) over the ${UPSTREAM_LATENCY_MS} ms upstream (4 pages), ${incremental.direct.length} requests one at a time, ms p50 (p90): ` +
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
  lines.push(...sideBySide(results));
  return lines;
}

/** Who serves the page of 25 keys with every field, by row: the floor, the gateway, the peers. */
const SAME_PAGE: Array<[string, string]> = [
  ['floor', '2'],
  ['gateway', '3'],
  ['Tailcall', PEER_ROWS.tailcall[0]],
  ['Mesh + Hive Gateway', PEER_ROWS.mesh[0]],
];

/** The same page served by the floor, the gateway and each peer that ran, each against the floor; none without a peer row. */
function sideBySide({ summary }: Results): string[] {
  const ran = SAME_PAGE.filter(([, id]) => summary.has(id));
  const floor = summary.get('2');
  if (!floor || !ran.some(([, id]) => Object.values(PEER_ROWS).some(([page]) => page === id))) return [];
  return [
    '',
    'The same page of 25 keys, every field:',
    '',
    '| Server | Row | CPU µs/req | ÷ floor | req/s | Peak RSS MB |',
    '|---|---|---:|---:|---:|---:|',
    ...ran.map(([who, id]) => {
      const m = summary.get(id)!;
      return `| ${who} | ${id} | ${fixed(m.cpuMicrosPerRequest)} | ${fixed(m.cpuMicrosPerRequest / floor.cpuMicrosPerRequest, 2)} | ${fixed(m.requestsPerSecond)} | ${fixed(m.peakRssMB)} |`;
    }),
  ];
}
