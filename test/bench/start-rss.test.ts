import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { imageCommand } from '../../bench/image-command.js';
import { runDocumentedCommands } from '../support/documented-command.js';
import { sectionOf } from '../support/markdown.js';

const root = new URL('../..', import.meta.url).pathname;

/**
 * Keeps `npm run bench:start` from rotting: the quick look docs/performance.md prints must print its
 * table with a row for each setting. No figure is asserted: memory is measured with the command, never in tests.
 */
it('runs as docs/performance.md prints it, a row for each setting and the bare node', { timeout: 120_000 }, async () => {
  const docs = sectionOf(readFileSync(`${root}/docs/performance.md`, 'utf8'), 'memory-at-start')!;
  const commands = [...docs.matchAll(/^(\.\/run npm run bench:start -- .*)$/gm)].map(([, command]) => command!);
  expect(commands).toEqual(['./run npm run bench:start -- --starts 1 --settle-ms 0']);
  const [run] = (await runDocumentedCommands(commands, [])).runs;
  expect(run!.code).toBe(0);
  const flags = imageCommand(readFileSync(`${root}/Dockerfile`, 'utf8')).nodeFlags.join(' ');
  expect(run!.stdout).toContain(`RSS after start, before any request: node ${flags} `);
  expect(run!.stdout).toContain('| Settings | When it says it listens | 0 s later | of which anonymous | of which file-backed |');
  const reading = String.raw`\d+\.\d \(\d+\.\d-\d+\.\d\)`;
  for (const name of [
    'production: NODE_ENV=production, UPSTREAM_URL set, no Redis, no tracing',
    'default: development, the embedded sandbox and GraphiQL',
    'bare `node`, the same flags',
  ]) {
    expect(run!.stdout).toMatch(
      new RegExp(
        String.raw`^\| ${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \| ${reading} \| ${reading} \| ${reading} \| ${reading} \|$`,
        'm',
      ),
    );
  }
});

it("reads the image's node flags from the Dockerfile's one exec-form CMD, and refuses any other", () => {
  expect(imageCommand('FROM node\nCMD ["node", "--max-semi-space-size=64", "dist/main.js"]\n')).toEqual({
    nodeFlags: ['--max-semi-space-size=64'],
    script: 'dist/main.js',
  });
  expect(() => imageCommand('CMD ["node", "dist/main.js"]\nCMD ["node", "dist/main.js"]\n')).toThrow('The Dockerfile has 2 CMD lines');
  expect(() => imageCommand('CMD node dist/main.js\n')).toThrow();
  expect(() => imageCommand('CMD ["npm", "start"]\n')).toThrow("The Dockerfile's CMD is not node, its flags, then a script");
});
