import { describe, expect, it } from 'vitest';
import { type Results, reportLines } from '../../bench/report.js';
import { targetLines } from '../../bench/targets.js';
import { passed, summarise } from '../../bench/throughput.js';

/**
 * What `npm run bench` prints when a row completed no request (a busy machine, a server that
 * never answered): that row named, with no figures, and the run failed; never a TypeError.
 */

/** The rows the targets read, each id with a label of its own. */
const ROWS = ['2', '3', '4', '5', '6a', '6b', '7a', '7b'].map((id) => ({ id, what: `row ${id} label` }));

/** One round of a row as bench/throughput.ts records it, after a trip through IPC (JSON, so NaN arrives as null). */
const round = (requests: number) =>
  JSON.parse(
    JSON.stringify({
      requests,
      requestsPerSecond: requests / 1.5,
      p50Ms: requests > 0 ? 12.5 : Number.NaN,
      p99Ms: requests > 0 ? 40.25 : Number.NaN,
      non2xx: 0,
      transportErrors: 0,
      graphqlErrors: 0,
      cpuMicrosPerRequest: 400,
      peakRssMB: 100,
      heapAtPeakMB: 50,
      externalAtPeakMB: 5,
    }),
  );

function resultsOf(requestsOf: (id: string) => number[]): Results {
  return {
    rounds: 1,
    durationSeconds: 0.3,
    connections: 50,
    serverVersion: '24.21.0',
    rows: ROWS,
    summary: summarise(new Map(ROWS.map(({ id }) => [id, requestsOf(id).map(round)]))),
    wireBytes: new Map([
      ['3', 5872],
      ['4', 9683],
      ['7a', 1125],
      ['7b', 717],
    ]),
    idle: { atStartMB: 130, afterMB: 300 },
    peerNotes: [],
    redis: true,
    bursts: { oneCaller: { upstreamCalls: 1, p50Ms: 60 }, manyCallers: { upstreamCalls: 50, p50Ms: 55 } },
    incremental: { direct: [22, 23], page: [27, 28], unstreamed: [92, 93], first: [30, 31], last: [98, 99] },
  };
}

describe('the bench report', () => {
  it('puts the same page side by side: floor, gateway and each peer that ran, CPU against the floor', () => {
    const rows = ['2', '3', 'T', 'T1'].map((id) => ({ id, what: `row ${id} label` }));
    const summary = summarise(new Map(rows.map(({ id }) => [id, [round(3)]])));
    summary.get('3')!.cpuMicrosPerRequest = 700;
    summary.get('T')!.cpuMicrosPerRequest = 900;
    const lines = reportLines({ ...resultsOf(() => [3]), rows, summary, peerNotes: ['Peer rows skipped: not installed.'] });
    const at = lines.indexOf('The same page of 25 keys, every field:');
    expect(lines.slice(at, at + 7)).toEqual([
      'The same page of 25 keys, every field:',
      '',
      '| Server | Row | CPU µs/req | ÷ floor | req/s | Peak RSS MB |',
      '|---|---|---:|---:|---:|---:|',
      '| floor | 2 | 400 | 1.00 | 2 | 100 |',
      '| gateway | 3 | 700 | 1.75 | 2 | 100 |',
      '| Tailcall | T | 900 | 2.25 | 2 | 100 |',
    ]);
    expect(lines.at(at + 7)).toBeUndefined();
    expect(lines).toContain('Peer rows skipped: not installed.');
  });

  it('puts nothing side by side without a peer row', () => {
    expect(reportLines(resultsOf(() => [3]))).not.toContain('The same page of 25 keys, every field:');
  });

  it('prints every figure of rows that completed requests, and passes', () => {
    const results = resultsOf(() => [3]);
    expect(reportLines(results)).toContain('| 6b | row 6b label | 2 | 12.50 | 40.25 | 400 | 100 | 50 / 5 | 0 | 0 |  |');
    expect(targetLines(results)).toContain('| Gateway CPU per request ÷ floor (row 3 ÷ row 2), at most 2 | 1.00 | met |');
    expect(passed(results.summary)).toBe(true);
  });

  it('names a row that completed no request, prints no figure for it, and fails the run', () => {
    const results = resultsOf((id) => (id === '6b' ? [0] : [3]));
    const lines = reportLines(results);
    expect(lines).toContain('| 6b | row 6b label | — | — | — | — | — | — | 0 | 0 |  |');
    expect(lines).toContain('Row 6b (row 6b label) completed no request in round 1 of 1: it has no figures, and the run fails.');
    expect(lines).toContain('| 6a | row 6a label | 2 | 12.50 | 40.25 | 400 | 100 | 50 / 5 | 0 | 0 |  |');
    const targets = targetLines(results);
    expect(targets).toContain('| Added p50 at +20 ms upstream (6b − 6a), under 1 ms | — | not measured |');
    expect(targets).toContain('| Gateway peak RSS under load, below 150 MB | — | not measured |');
    expect(targets).toContain('| Gateway CPU per request ÷ floor (row 3 ÷ row 2), at most 2 | 1.00 | met |');
    expect(passed(results.summary)).toBe(false);
  });

  it('names the round that completed no request, and quotes no median over the others', () => {
    const results = resultsOf((id) => (id === '3' ? [3, 0, 3] : [3, 3, 3]));
    const lines = reportLines(results);
    expect(lines).toContain('| 3 | row 3 label | — | — | — | — | — | — | 0 | 0 | 5872 |');
    expect(lines).toContain('Row 3 (row 3 label) completed no request in round 2 of 3: it has no figures, and the run fails.');
    expect(targetLines(results)).toContain('| Gateway CPU per request ÷ floor (row 3 ÷ row 2), at most 2 | — | not measured |');
    expect(passed(results.summary)).toBe(false);
  });
});
