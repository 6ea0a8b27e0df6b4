// The targets the gateway is held to, read off the rows (they compare rows with each other, so they
// need the full set), and what compression costs and saves.

import { compressed } from './compression.js';
import { UPSTREAM_LATENCY_MS } from './processes.js';
import { fixed, type Results } from './report.js';
import { failuresOf } from './throughput.js';

/** The targets' table, each met or not, and a line per compressed row. */
export function targetLines({ summary, wireBytes, idle }: Results): string[] {
  const s = (id: string) => summary.get(id)!;
  const failures = failuresOf(summary);
  const cpuRatio = s('3').cpuMicrosPerRequest / s('2').cpuMicrosPerRequest;
  const rpsRatio = s('3').requestsPerSecond / s('2').requestsPerSecond;
  const addedP50 = s('6b').p50Ms - s('6a').p50Ms;
  const addedP99 = s('6b').p99Ms - s('6a').p99Ms;
  const peakRss = Math.max(...['3', '4', '5', '6b', ...compressed.keys()].map((id) => s(id).peakRssMB));
  const idleRss = Math.max(idle.atStartMB, idle.afterMB);
  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  // Each target: what, its value (NaN where a row it reads measured nothing), the value as shown, whether it is met.
  const targets: Array<[string, number, string, boolean]> = [
    ['Gateway CPU per request ÷ floor (row 3 ÷ row 2), at most 2', cpuRatio, fixed(cpuRatio, 2), cpuRatio <= 2],
    ['Gateway req/s ÷ floor (row 3 ÷ row 2), at least 0.6', rpsRatio, fixed(rpsRatio, 2), rpsRatio >= 0.6],
    [`Added p50 at +${UPSTREAM_LATENCY_MS} ms upstream (6b − 6a), under 1 ms`, addedP50, `${fixed(addedP50, 2)} ms`, addedP50 < 1],
    [`Added p99 at +${UPSTREAM_LATENCY_MS} ms upstream (6b − 6a), under 5 ms`, addedP99, `${fixed(addedP99, 2)} ms`, addedP99 < 5],
    ['Gateway peak RSS under load, below 150 MB', peakRss, `${fixed(peakRss)} MB`, peakRss < 150],
    ['Gateway idle RSS, below 80 MB', idleRss, `${fixed(idleRss)} MB`, idleRss < 80],
    ['non-2xx answers and errors, 0', failures, String(failures), failures === 0],
  ];
  const lines = [
    '',
    '| Target | Measured | |',
    '|---|---:|---|',
    ...targets.map(([what, value, shown, ok]) =>
      Number.isFinite(value) ? `| ${what} | ${shown} | ${verdict(ok)} |` : `| ${what} | — | not measured |`,
    ),
    '',
  ];
  for (const [id, baseId] of compressed) {
    const extra = s(id).cpuMicrosPerRequest - s(baseId).cpuMicrosPerRequest;
    const saved = 1 - wireBytes.get(id)! / wireBytes.get(baseId)!;
    lines.push(
      `Compression, row ${id} against row ${baseId}: ${extra >= 0 ? '+' : ''}${fixed(extra)} CPU µs per answer, ${fixed(saved * 100)}% fewer bytes (${wireBytes.get(baseId)} → ${wireBytes.get(id)}).`,
    );
  }
  return lines;
}
