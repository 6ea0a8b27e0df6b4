import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { redisServerInstalled } from '../support/redis-server.js';

/**
 * Keeps `npm run bench` from rotting: its smoke mode (one short round) must start every process,
 * load every row and print the table with no failed request. No timing is asserted: performance is
 * measured with `npm run bench`, never in tests. On a busy machine a row's run goes on until one of
 * its requests has completed (bench/load.ts), so a slow machine makes the run longer, not failed.
 */
it('npm run bench -- --smoke prints the table, every row served, with no failed answer', { timeout: 120_000 }, async () => {
  const folder = await mkdtemp(join(tmpdir(), 'bench-smoke-'));
  try {
    const json = join(folder, 'bench.json');
    // A failed run says which row failed and how in its output (and a crash on stderr, in the error's message): both are shown.
    const { stdout, failure } = await promisify(execFile)('npm', ['run', '--silent', 'bench', '--', '--smoke', '--json', json], {
      cwd: new URL('../..', import.meta.url).pathname,
      timeout: 110_000,
    }).then(
      ({ stdout }) => ({ stdout, failure: undefined }),
      (error: Error & { stdout?: string }) => ({ stdout: error.stdout ?? '', failure: `${error.message}\n${error.stdout ?? ''}` }),
    );
    expect(failure).toBeUndefined();
    expect(stdout).toContain(
      '| Row | What | req/s | p50 ms | p99 ms | CPU µs/req | Peak RSS MB | heap / external MB at peak | non-2xx | errors | Answer bytes |',
    );
    expect(stdout).toMatch(/^Gateway RSS idle: \d+ MB after start-up, \d+ MB 3 s after the load.$/m);
    expect(stdout).toContain('| non-2xx answers and errors, 0 | 0 | met |');

    const { rows } = JSON.parse(await readFile(json, 'utf8')) as { rows: Array<Record<string, number | string | null>> };
    // Rows 8b and 9b need a redis-server, which CI installs.
    const withRedis = redisServerInstalled() ? ['8b', '9b'] : [];
    expect(rows.map((row) => row.id)).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
      '4s',
      '6a',
      '6b',
      '6c',
      '8a',
      '9a',
      ...withRedis,
      '7a',
      '7b',
      '10a',
      '10b',
      '10c',
      '10e',
      '10d',
    ]);
    expect(stdout).toMatch(
      /^Coalesced reads, 50 identical apiKeys\(first: 25\) at once over the 20 ms upstream: one caller \d+(?:\.\d+)? upstream call\(s\)/m,
    );
    expect(stdout).toMatch(
      /^Incremental delivery, apiKeys\(first: 100\) over the 20 ms upstream \(4 pages\), 2 requests one at a time, ms p50 \(p90\): one upstream page direct [\d.]+ \([\d.]+\), through the gateway \(apiKeys\(first: 25\)\) [\d.]+ \([\d.]+\); unstreamed, every edge at [\d.]+ \([\d.]+\); streamed, the first edge at [\d.]+ \([\d.]+\) and the last at [\d.]+ \([\d.]+\)/m,
    );
    for (const row of rows) {
      expect(row.requests, `row ${row.id}`).toBeGreaterThan(0);
      expect([row.non2xx, row.transportErrors, row.graphqlErrors], `row ${row.id}`).toEqual([0, 0, 0]);
    }
    const bytes = Object.fromEntries(rows.map((row) => [row.id, row.answerBytes]));
    expect(bytes['7a']).toBeLessThan(bytes['4'] as number);
    expect(bytes['7b']).toBeLessThan(bytes['3'] as number);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
});
