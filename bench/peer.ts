// The peer: what a team would deploy instead of this gateway (GraphQL Mesh compose over an OpenAPI
// description of the contract, served by Hive Gateway), set up as ../shared/peer/README.md says:
// installed from the npm registry on first use into a cache folder keyed by its lockfile, then
// started as a process of its own. Its CPU and peak RSS are read from /proc, since it does not
// speak the benchmark's IPC; a peer that cannot be installed is skipped with the reason.

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Usage } from './probe.js';
import { treeUsage } from './tree-usage.js';

/** The files of ../shared/peer the install needs. */
const FILES = ['package.json', 'package-lock.json', 'mesh.config.ts', 'vms-v2.openapi.json', 'peer-list-query.graphql'];

/** The peer's installed folder, installing and composing it first if needed; or why it cannot be. */
export function preparePeer(source: string): { dir: string; query: string } | { skipped: string } {
  const missing = FILES.filter((file) => !existsSync(join(source, file)));
  if (missing.length > 0) return { skipped: `the peer's files are not at ${source} (missing ${missing.join(', ')}); pass --peer-source` };
  const lock = createHash('sha256')
    .update(readFileSync(join(source, 'package-lock.json')))
    .digest('hex')
    .slice(0, 12);
  const dir = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'vms-gateway', `peer-${lock}`);
  try {
    if (!existsSync(join(dir, 'supergraph.graphql'))) {
      mkdirSync(dir, { recursive: true });
      for (const file of FILES) copyFileSync(join(source, file), join(dir, file));
      console.error(`Installing the peer into ${dir} (npm ci, about a minute the first time)…`);
      execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: 'ignore', timeout: 600_000 });
      execFileSync(join(dir, 'node_modules/.bin/mesh-compose'), ['-o', 'supergraph.graphql'], {
        cwd: dir,
        stdio: 'ignore',
        timeout: 120_000,
      });
    }
  } catch (error) {
    return {
      skipped: `the peer could not be installed in ${dir}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
    };
  }
  return { dir, query: readFileSync(join(dir, 'peer-list-query.graphql'), 'utf8').trim() };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface PeerProcess {
  child: ChildProcess;
  port: number;
  usage(): Usage;
}

/**
 * Starts Hive Gateway on the composed supergraph, on `node`, and resolves once it answers. The child
 * is added to `track` as soon as it is spawned, so that it is stopped whatever becomes of the start.
 */
export async function startPeer(dir: string, upstreamUrl: string, node: string, track: ChildProcess[]): Promise<PeerProcess> {
  const port = await freePort();
  const bin = join(dir, 'node_modules/@graphql-hive/gateway/dist/bin.js');
  const child = spawn(node, [bin, 'supergraph', 'supergraph.graphql', '--host', '127.0.0.1', '--port', String(port)], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', UPSTREAM_URL: upstreamUrl, NODE_ENV: 'production' },
    stdio: 'ignore',
  });
  track.push(child);
  await untilAnswering(child, { name: 'the peer', what: '/healthcheck', seconds: 60 }, async () => {
    const response = await fetch(`http://127.0.0.1:${port}/healthcheck`);
    return response.ok;
  });
  return { child, port, usage: () => treeUsage(child.pid!) };
}

interface Wait {
  /** Who, in the error's message. */
  name: string;
  /** What it is asked, in the error's message. */
  what: string;
  seconds: number;
  /** The end of what it printed, for the error's message. */
  output?: () => string;
}

/**
 * Resolves once `answers` resolves with true, asking every 200 ms; rejects if the child cannot be
 * spawned, exits first or does not answer in time (and then kills it).
 */
export async function untilAnswering(child: ChildProcess, wait: Wait, answers: () => Promise<boolean>): Promise<void> {
  let spawnError: Error | undefined;
  child.once('error', (error) => {
    spawnError = error;
  });
  const printed = () => {
    const tail = wait.output?.().trim();
    return tail ? `: ${tail}` : '';
  };
  const deadline = Date.now() + wait.seconds * 1000;
  for (;;) {
    if (spawnError) throw new Error(`${wait.name} could not be started: ${spawnError.message}`);
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${wait.name} exited with ${child.exitCode ?? child.signalCode} before it answered${printed()}`);
    try {
      if (await answers()) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill();
      throw new Error(`${wait.name} did not answer ${wait.what} within ${wait.seconds} s${printed()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
