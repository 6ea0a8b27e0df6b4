import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSchemaCost } from '../../scripts/schema-cost.js';
import { runDocumentedCommands } from '../support/documented-command.js';
import { sectionOf } from '../support/markdown.js';

/** `schema:cost` on the example client's manifests (both formats), as docs/schema.md prints it and as CI gates on it. */
const CODEGEN = 'examples/generated/persisted-documents.json';
const APOLLO = 'examples/generated/persisted-query-manifest.json';

describe('schema:cost', () => {
  it('lists each registered operation with the most calls it can make, most costly first, and passes within --max', async () => {
    const { code, stdout } = await runSchemaCost(['--manifest', CODEGEN, APOLLO, '--max', '5', '--json']);
    const report = JSON.parse(stdout) as {
      result: string;
      max: number;
      operations: Array<{ name: string; type: string; mostCalls: number; manifest: string }>;
    };
    expect([code, report.result, report.max]).toEqual([0, 'pass', 5]);
    const byName = Object.fromEntries(
      report.operations.map(({ name, manifest, type, mostCalls }) => [`${name} ${manifest}`, [type, mostCalls]]),
    );
    // ApiKeys takes first and after from variables: the most a hundred keys after a whole skipped page take, five pages.
    expect(byName).toMatchObject({
      [`ApiKeys ${CODEGEN}`]: ['query', 5],
      [`ApiKeys ${APOLLO}`]: ['query', 5],
      [`CreateFolder ${CODEGEN}`]: ['mutation', 1],
      [`CreateFolder ${APOLLO}`]: ['mutation', 1],
    });
    expect(report.operations.map(({ mostCalls }) => mostCalls)).toEqual(
      report.operations.map(({ mostCalls }) => mostCalls).toSorted((a, b) => b - a),
    );
  });

  it('fails (exit 1) an operation above --max, naming it, and refuses (exit 2) what is not a manifest', async () => {
    const over = await runSchemaCost(['--manifest', CODEGEN, '--max', '4']);
    expect([over.code, over.stdout.trim().split('\n').at(-1)]).toEqual([
      1,
      'Failed: 2 operations above 4 calls: ApiKeys, StreamedApiKeys.',
    ]);
    const folder = mkdtempSync(join(tmpdir(), 'schema-cost-'));
    const junk = join(folder, 'junk.json');
    writeFileSync(junk, '{"format":"something else"}');
    expect(await runSchemaCost(['--manifest', junk])).toMatchObject({ code: 2, stdout: '' });
    expect(await runSchemaCost(['--manifest', CODEGEN, '--max', 'lots'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'schema:cost: --max is a whole number of calls, not "lots".\n',
    });
  });

  it('runs as docs/schema.md prints it', async () => {
    const docs = sectionOf(readFileSync('docs/schema.md', 'utf8'), 'schemacost')!;
    const commands = [...docs.matchAll(/^(\.\/run npm run schema:cost -- .*)$/gm)].map(([, command]) => command!);
    expect(commands).toHaveLength(2);
    const { runs, files } = await runDocumentedCommands(commands, ['cost.json']);
    expect(runs.map((run) => run.code)).toEqual([0, 0]);
    expect(runs[0]!.stdout).toContain('Passed: every operation within 5 calls.');
    expect(JSON.parse(files['cost.json']!)).toMatchObject({ result: 'pass', max: null });
  });
});
