import { execFile } from 'node:child_process';
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

/** What a reader's app already is: a TypeScript project, set up as Vite's templates set it up. */
const APP_TSCONFIG = JSON.stringify({
  compilerOptions: {
    target: 'es2022',
    module: 'preserve',
    moduleResolution: 'bundler',
    verbatimModuleSyntax: true,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
  },
  include: ['src'],
});

/**
 * A fresh app folder, removed by `close`. Its node_modules is this repository's: the packages a
 * doc tells an app to install are devDependencies here (`packagesNamed` checks that each one
 * resolves), so the step runs offline and in seconds instead of reinstalling them from the registry.
 */
export async function appFolder(): Promise<{ path: string; write(file: string, text: string): Promise<void>; close(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'vms-app-'));
  await symlink(join(ROOT, 'node_modules'), join(path, 'node_modules'), 'dir');
  return {
    path,
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
 * line of the shell blocks in order, except `npm install …`, whose packages must resolve here instead.
 */
export async function followSteps(
  app: { path: string; write(file: string, text: string): Promise<void> },
  steps: Block[],
  files: Record<string, string> = {},
): Promise<void> {
  await app.write('package.json', JSON.stringify({ name: 'frontend', private: true, type: 'module' }));
  await app.write('tsconfig.json', APP_TSCONFIG);
  for (const [file, text] of Object.entries(files)) await app.write(file, text);
  for (const block of steps.filter(({ file }) => file !== undefined)) await app.write(block.file!, block.text);
  for (const line of steps.filter(({ language }) => language === 'sh').flatMap(({ text }) => text.trim().split('\n'))) {
    if (line.startsWith('npm install')) expect(packagesNamed(line).length).toBeGreaterThan(0);
    else await shell(app.path, line.replace('path/to/vms-graphql-gateway', ROOT));
  }
}
