// The Rust peer: Tailcall 1.6.14, a GraphQL-over-REST gateway, as the "Tailcall" section of
// ../shared/peer/README.md sets it up. Its own tailcall/run.sh installs the binary from the npm
// registry into the folder it is given on first use (patching a copy where this glibc is too old
// for it) and then becomes Tailcall, on the port it is given; this module gives it a cache folder
// keyed by the files it reads, and starts it as a process of its own. Like the Mesh peer
// (bench/peer.ts), its CPU and peak RSS are read from /proc, and a Tailcall that cannot be
// installed or started is skipped with the reason.

import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { freePort, type PeerProcess, untilAnswering } from './peer.js';
import { treeUsage } from './tree-usage.js';

/** The files of ../shared/peer/tailcall that run.sh reads; a change to any of them makes another folder. */
const FILES = ['run.sh', 'glibc-compat.mjs', 'vms.graphql'];
/** Tailcall's equivalent of apiKeys(first: 25) with every field, in its own schema (the REST envelope kept). */
const QUERY = 'list-query.graphql';

export interface PreparedTailcall {
  /** run.sh. */
  script: string;
  /** Its TAILCALL_DIR: the npm install, the binary it runs, one work folder per port. */
  dir: string;
  query: string;
}

/** Where Tailcall is (or will be, run.sh installs it on first use), and its query; or why it cannot be. */
export function prepareTailcall(peerSource: string): PreparedTailcall | { skipped: string } {
  const source = join(peerSource, 'tailcall');
  const missing = [...FILES, QUERY].filter((file) => !existsSync(join(source, file)));
  if (missing.length > 0) return { skipped: `Tailcall's files are not at ${source} (missing ${missing.join(', ')}); pass --peer-source` };
  const hash = createHash('sha256');
  for (const file of FILES) hash.update(readFileSync(join(source, file)));
  const dir = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'vms-gateway', `tailcall-${hash.digest('hex').slice(0, 12)}`);
  return { script: join(source, 'run.sh'), dir, query: readFileSync(join(source, QUERY), 'utf8').trim() };
}

/** Tailcall's binary, as run.sh leaves it once installed (and patched where this glibc needs it). */
export const binaryOf = (tailcall: PreparedTailcall) => join(tailcall.dir, 'bin', 'tailcall');

/** Everything run.sh and the install may take, the first time. */
const START_SECONDS = 600;
/** How much of what run.sh and Tailcall print is kept, for the reason when they stop. */
const KEPT_OUTPUT = 2_000;

/**
 * Runs run.sh on a free port and resolves once Tailcall answers a GraphQL request (it has no health
 * endpoint). The child is added to `track` as soon as it is spawned; run.sh execs Tailcall, so its
 * PID is Tailcall's, the one its usage is read from and the one stopped.
 */
export async function startTailcall(tailcall: PreparedTailcall, upstreamUrl: string, track: ChildProcess[]): Promise<PeerProcess> {
  const port = await freePort();
  const installed = existsSync(binaryOf(tailcall));
  if (!installed) console.error(`Tailcall is not installed: run.sh installs it into ${tailcall.dir} (npm install, once)…`);
  const child = spawn(tailcall.script, [], {
    // npm (for the install) needs this process's PATH and npm settings.
    env: { ...process.env, UPSTREAM_URL: upstreamUrl, PORT: String(port), TAILCALL_DIR: tailcall.dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track.push(child);
  // Read for as long as it runs, so that it never blocks on a full pipe; the end is kept for the reason it stopped.
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-KEPT_OUTPUT);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const lastLine = () => output.trim().split('\n').at(-1) ?? '';
  const name = installed ? 'Tailcall' : `Tailcall (not installed, run.sh installing it into ${tailcall.dir})`;
  await untilAnswering(child, { name, what: '{ __typename }', seconds: START_SECONDS, output: lastLine }, async () => {
    const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
      signal: AbortSignal.timeout(5_000),
    });
    return response.ok && (await response.text()) === '{"data":{"__typename":"Query"}}';
  });
  return { child, port, usage: () => treeUsage(child.pid!) };
}
