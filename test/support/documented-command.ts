import { execFile } from 'node:child_process';
import { readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './app-folder.js';

/** What a command run in a shell did: its exit code and its output. */
export interface CommandRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs commands a doc prints, one after the other, as a person types them at the repository's
 * root: each by `sh -c`, so that `./run`, npm's banner and a shell's `>` act as they do for them.
 * `writes` are the files they write there, relative to the root: read back once all have run
 * (undefined for one none wrote), then removed; one that was there before (a reader's own
 * usage.json) is put back as it was.
 */
export async function runDocumentedCommands(
  commands: string[],
  writes: string[],
): Promise<{ runs: CommandRun[]; files: Record<string, string | undefined> }> {
  const kept = writes.map((file) => ({ file, path: join(ROOT, file), aside: join(ROOT, `${file}.before-test-${process.pid}`) }));
  for (const { path, aside } of kept) await rename(path, aside).catch(() => {});
  try {
    const runs: CommandRun[] = [];
    for (const command of commands) runs.push(await shell(command));
    const files: Record<string, string | undefined> = {};
    for (const { file, path } of kept) files[file] = await readFile(path, 'utf8').catch(() => undefined);
    return { runs, files };
  } finally {
    for (const { path, aside } of kept) {
      await rm(path, { force: true });
      await rename(aside, path).catch(() => {});
    }
  }
}

async function shell(command: string): Promise<CommandRun> {
  try {
    const { stdout, stderr } = await promisify(execFile)('sh', ['-c', command], { cwd: ROOT });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}
