import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'vitest';

/** This repository's root. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A fenced block of a markdown section: its language and text, and the app file it is, when its first line says `// <path> in your app`. */
export interface Block {
  language: string;
  text: string;
  file: string | undefined;
}

/** The fenced blocks of `markdown` between the line that starts with `from` and the next one that starts with `to`. */
export function blocksBetween(markdown: string, from: string, to: string): Block[] {
  const start = markdown.indexOf(from);
  const end = markdown.indexOf(to, start + from.length);
  if (start < 0 || end < 0) throw new Error(`no section from "${from}" to "${to}"`);
  return [...markdown.slice(start, end).matchAll(/```(\w+)\n([\s\S]*?)```/g)].map(([, language, text]) => ({
    language: language!,
    text: text!,
    file: /^\/\/ (\S+) in your app\n/.exec(text!)?.[1],
  }));
}

/** Where the README's step 4 begins and ends: the steps a reader follows in an app of their own. */
export const README_APP_STEP = ['**4. A typed client in a frontend app.**', '## '] as const;
/** Where docs/clients.md's Relay set-up begins and ends (the next heading, whichever section follows): another such app of the reader's. */
export const CLIENTS_RELAY_STEP = ['**Relay**', '## '] as const;

/** What a reader's app is: a TypeScript project with the `tsconfig.json` the README's step 4 names. */
const APP_TSCONFIG = blocksBetween(readFileSync(join(ROOT, 'README.md'), 'utf8'), ...README_APP_STEP).find(
  ({ file }) => file === 'tsconfig.json',
)!.text;

/** Where an app folder's packages come from. */
export type Packages =
  /**
   * This repository's node_modules: the packages a doc tells an app to install are devDependencies
   * here (`packagesNamed` checks that each one resolves), so the steps run offline and in seconds.
   */
  | 'repository'
  /** The npm registry: the doc's `npm install` lines run as written, and get what a reader gets today. */
  | 'registry';

/** A fresh app folder, removed by `close`, with its packages from `packages`. */
export async function appFolder(
  packages: Packages = 'repository',
): Promise<{ path: string; packages: Packages; write(file: string, text: string): Promise<void>; close(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'vms-app-'));
  if (packages === 'repository') await symlink(join(ROOT, 'node_modules'), join(path, 'node_modules'), 'dir');
  return {
    path,
    packages,
    async write(file, text) {
      await mkdir(dirname(join(path, file)), { recursive: true });
      await writeFile(join(path, file), text);
    },
    close: () => rm(path, { recursive: true, force: true }),
  };
}

/** The packages an `npm install …` line names, each of which must resolve from this repository. */
function packagesNamed(line: string): string[] {
  const names = line
    .split(/\s+/)
    .slice(2)
    .filter((word) => !word.startsWith('-'));
  const require = createRequire(join(ROOT, 'package.json'));
  for (const name of names) require.resolve(`${name}/package.json`);
  return names;
}

const run = promisify(execFile);

/** Runs one line of a shell block in `folder`, as a reader would type it. */
function shell(folder: string, line: string): Promise<{ stdout: string; stderr: string }> {
  return run('sh', ['-c', line], { cwd: folder, env: { ...process.env, CI: 'true' } });
}

/**
 * A doc's steps followed in `app`, as a reader of a TypeScript app would: package.json and
 * APP_TSCONFIG, the test's own `files` (path to text), each block that names its file, then every
 * line of the shell blocks in order; `npm install …` runs only in an app whose packages come from the
 * registry, and in one that has the repository's, its packages must resolve there instead.
 */
export async function followSteps(
  app: { path: string; packages: Packages; write(file: string, text: string): Promise<void> },
  steps: Block[],
  files: Record<string, string> = {},
): Promise<void> {
  await app.write('package.json', JSON.stringify({ name: 'frontend', private: true, type: 'module' }));
  await app.write('tsconfig.json', APP_TSCONFIG);
  for (const [file, text] of Object.entries(files)) await app.write(file, text);
  for (const block of steps.filter(({ file }) => file !== undefined)) await app.write(block.file!, block.text);
  for (const line of steps.filter(({ language }) => language === 'sh').flatMap(({ text }) => text.trim().split('\n'))) {
    if (line.startsWith('npm install') && app.packages === 'repository') expect(packagesNamed(line).length).toBeGreaterThan(0);
    else await shell(app.path, line.replace('path/to/vms-graphql-gateway', ROOT));
  }
}
