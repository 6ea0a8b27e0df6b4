import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { startTailcallServer } from '../../bench/processes.js';
import type { ServerProcess } from '../../bench/servers.js';
import { binaryOf, prepareTailcall } from '../../bench/tailcall.js';

/**
 * Rows T and T1 of `npm run bench`: Tailcall, the Rust peer of ../shared/peer/tailcall, served the
 * same page as row 3 and one key, every answer a GraphQL result with data and no error (the
 * upstream refuses a call without the caller's Authorization, so a served answer shows it was
 * forwarded). No timing is asserted. Where Tailcall is not installed the run would install it from
 * the npm registry, which a test does not do: it is skipped, saying so.
 */

const root = new URL('../..', import.meta.url).pathname;
const peerSource = join(root, '..', 'shared', 'peer');

it('npm run bench -- --smoke --rows T,T1 serves both rows, with no failed answer', { timeout: 180_000 }, async (context) => {
  const prepared = prepareTailcall(peerSource);
  if ('skipped' in prepared) return context.skip(prepared.skipped);
  if (!existsSync(binaryOf(prepared)))
    return context.skip(`Tailcall is not installed in ${prepared.dir}: \`./run npm run bench -- --rows T\` installs it`);
  const folder = await mkdtemp(join(tmpdir(), 'bench-tailcall-'));
  try {
    const json = join(folder, 'bench.json');
    const { stdout, failure } = await promisify(execFile)(
      'npm',
      ['run', '--silent', 'bench', '--', '--smoke', '--rows', 'T,T1', '--json', json],
      {
        cwd: root,
        timeout: 170_000,
      },
    ).then(
      ({ stdout }) => ({ stdout, failure: undefined }),
      (error: Error & { stdout?: string }) => ({ stdout: error.stdout ?? '', failure: `${error.message}\n${error.stdout ?? ''}` }),
    );
    expect(failure).toBeUndefined();
    expect(stdout).not.toContain('skipped');
    const { rows } = JSON.parse(await readFile(json, 'utf8')) as { rows: Array<Record<string, number | string | null>> };
    expect(rows.map((row) => [row.id, row.what])).toEqual([
      ['T', 'Tailcall 1.6.14 (Rust) over REST, apiKeys(limit: 25), same page'],
      ['T1', 'Tailcall: apiKeys(limit: 1)'],
    ]);
    for (const row of rows) {
      expect(row.requests, `row ${row.id}`).toBeGreaterThan(0);
      expect([row.non2xx, row.transportErrors, row.graphqlErrors], `row ${row.id}`).toEqual([0, 0, 0]);
    }
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
});

it("says why Tailcall's rows are skipped when its files are not there, instead of failing the run", async () => {
  const folder = await mkdtemp(join(tmpdir(), 'bench-no-peer-'));
  try {
    const upstream = { port: 9 } as ServerProcess;
    expect(await startTailcallServer(folder, upstream)).toEqual({
      note: `Tailcall rows skipped: Tailcall's files are not at ${join(folder, 'tailcall')} (missing run.sh, glibc-compat.mjs, vms.graphql, list-query.graphql); pass --peer-source.`,
    });
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
});
