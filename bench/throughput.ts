// The throughput rows measured: each row loaded by the load generator (bench/load.ts) while its
// server's own CPU and peak RSS are read (bench/probe.ts), rows in alternating order over the rounds
// because a shared 2-core machine is noisy; a row's summary is the median of its rounds.

import type { ChildProcess } from 'node:child_process';
import type { LoadResult } from './load.js';
import type { Row } from './rows.js';
import { ask } from './servers.js';
import { median } from './statistics.js';

export const MB = 2 ** 20;
const WARMUP_CONNECTIONS = 50;

interface Measurement extends LoadResult {
  cpuMicrosPerRequest: number;
  peakRssMB: number;
  /** V8 heap in use, and memory outside it (buffers, native), when RSS peaked. */
  heapAtPeakMB: number;
  externalAtPeakMB: number;
}

interface Load {
  rounds: number;
  durationSeconds: number;
  /** 0 for none. */
  warmupSeconds: number;
  connections: number;
}

/** Every row's measurement in each round, by row id. */
export async function measureRows(loader: ChildProcess, rows: Row[], load: Load): Promise<Map<string, Measurement[]>> {
  // Warm-up at full load whatever --connections says: at 1 connection a process would still be
  // compiling its hot paths during the measured rounds, as a long-running server no longer is.
  if (load.warmupSeconds > 0)
    for (const row of rows)
      await ask<LoadResult>(loader, { ...row.job, connections: WARMUP_CONNECTIONS, durationSeconds: load.warmupSeconds }, 'result');
  const runs = new Map<string, Measurement[]>(rows.map((row) => [row.id, []]));
  for (let round = 0; round < load.rounds; round++) {
    for (const row of round % 2 === 0 ? rows : [...rows].reverse())
      runs.get(row.id)!.push(await measure(loader, row, load.connections, load.durationSeconds));
  }
  return runs;
}

async function measure(loader: ChildProcess, row: Row, connections: number, seconds: number): Promise<Measurement> {
  const before = await row.server.usage();
  const result = await ask<LoadResult>(loader, { ...row.job, connections, durationSeconds: seconds }, 'result');
  const after = await row.server.usage();
  return {
    ...result,
    cpuMicrosPerRequest: (after.cpuMicros - before.cpuMicros) / Math.max(1, result.requests),
    peakRssMB: after.peakRssBytes / MB,
    // None for a server of several processes (NaN, which IPC carries as null).
    heapAtPeakMB: (after.atPeak.heapUsedBytes ?? Number.NaN) / MB,
    externalAtPeakMB: (after.atPeak.externalBytes ?? Number.NaN) / MB,
  };
}

/**
 * A row over its rounds: the median of each figure, the sum of each error count. A row of which a
 * round completed no request has no figures (each NaN; a median over the other rounds would hide
 * the failure) and says why in `unmeasured`; its error counts are still summed.
 */
export type Summary = Record<keyof Measurement, number> & { unmeasured?: string };

const COUNTS = new Set<keyof Measurement>(['non2xx', 'transportErrors', 'graphqlErrors']);

export function summarise(runs: Map<string, Measurement[]>): Map<string, Summary> {
  const summary = new Map<string, Summary>();
  for (const [id, measurements] of runs) {
    const keys = (measurements[0] ? Object.keys(measurements[0]) : [...COUNTS]) as (keyof Measurement)[];
    // `requests > 0` and not `=== 0`: over IPC a missing number arrives as null.
    const empty = measurements.findIndex((m) => !(m.requests > 0));
    const unmeasured =
      measurements.length === 0
        ? 'was not measured'
        : empty >= 0
          ? `completed no request in round ${empty + 1} of ${measurements.length}`
          : undefined;
    const figure = (k: keyof Measurement) =>
      COUNTS.has(k) ? measurements.reduce((s, m) => s + m[k], 0) : unmeasured ? Number.NaN : median(measurements.map((m) => m[k]));
    const figures = Object.fromEntries(keys.map((k) => [k, figure(k)])) as Record<keyof Measurement, number>;
    summary.set(id, unmeasured ? { ...figures, unmeasured } : figures);
  }
  return summary;
}

/** Non-2xx answers and errors of every row. */
export const failuresOf = (summary: Map<string, Summary>) =>
  [...summary.values()].reduce((sum, m) => sum + m.non2xx + m.transportErrors + m.graphqlErrors, 0);

/** Whether the run passed: every row measured, and no non-2xx answer or error. */
export const passed = (summary: Map<string, Summary>) =>
  failuresOf(summary) === 0 && [...summary.values()].every((m) => m.unmeasured === undefined);
