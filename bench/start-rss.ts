// The gateway's RSS after start, before its first request: the process started as the image starts
// it (the Dockerfile's node flags, configured by environment variables only), its resident set read
// from /proc/<pid>/status as soon as it says it listens and again a moment later, over several
// starts, for production settings and for the defaults. Linux only (/proc).
//
//   npm run bench:start [-- --starts 5] [-- --node-flags="--max-semi-space-size=16"] [-- BUILD]
//
// BUILD: a compiled build's folder (default: this checkout's, which `npm run bench:start` compiles).

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { imageCommand } from './image-command.js';
import { median } from './statistics.js';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    starts: { type: 'string', default: '5' },
    'node-flags': { type: 'string' },
    'settle-ms': { type: 'string', default: '2000' },
  },
});
const starts = Number(args.starts);
const settleMs = Number(args['settle-ms']);
if (!Number.isInteger(starts) || starts < 1) throw new Error(`--starts takes a whole number above 0, not ${args.starts}`);
if (!Number.isInteger(settleMs) || settleMs < 0)
  throw new Error(`--settle-ms takes a whole number of milliseconds, not ${args['settle-ms']}`);
const build = positionals[0] ?? new URL('..', import.meta.url).pathname;
const nodeFlags = args['node-flags']?.split(/\s+/).filter(Boolean) ?? imageCommand().nodeFlags;

/** What each start is given besides its settings: only this machine, ports it picks, and nothing else inherited. */
const BASE_ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', HOST: '127.0.0.1', PORT: '0', METRICS_PORT: '0' };

/** The settings measured: what a deployment runs with (Redis and tracing off), and `./run start`'s defaults. */
const SETTINGS: Array<{ name: string; env: Record<string, string> }> = [
  {
    name: 'production: NODE_ENV=production, UPSTREAM_URL set, no Redis, no tracing',
    // Never called: nothing goes upstream before a request.
    env: { NODE_ENV: 'production', UPSTREAM_URL: 'http://127.0.0.1:9/v2' },
  },
  { name: 'default: development, the embedded sandbox and GraphiQL', env: {} },
];

/** The gateway's line saying it listens: the JSON line in production, the start-up text otherwise. */
const LISTENING = /"msg":"GraphQL gateway listening"|^GraphQL gateway .* listening on /m;

interface Reading {
  /** VmRSS, RssAnon and RssFile of /proc/<pid>/status, in MB. */
  rss: number;
  anonymous: number;
  fileBacked: number;
}

function readRss(pid: number): Reading {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kB = (field: string) => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
    if (!match) throw new Error(`/proc/${pid}/status has no ${field}`);
    return Number(match[1]) / 1024;
  };
  return { rss: kB('VmRSS'), anonymous: kB('RssAnon'), fileBacked: kB('RssFile') };
}

/** Starts `args` once, and reads its RSS when `listening` appears on its stdout and `settleMs` later; then stops it. */
async function measureStart(
  nodeArgs: string[],
  env: Record<string, string>,
  listening: RegExp,
): Promise<{ atListening: Reading; settled: Reading }> {
  const child = spawn(process.execPath, nodeArgs, { env: { ...BASE_ENV, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  try {
    const atListening = await new Promise<Reading>((resolve, reject) => {
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk;
        if (listening.test(output)) resolve(readRss(child.pid!));
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      child.once('exit', (code) => reject(new Error(`exited with ${code} before it listened:\n${output}`)));
    });
    await sleep(settleMs);
    return { atListening, settled: readRss(child.pid!) };
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  }
}

const mb = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `${median(sorted).toFixed(1)} (${sorted[0]!.toFixed(1)}-${sorted.at(-1)!.toFixed(1)})`;
};

const main = join(build, 'src', 'main.js');
const lines = [
  `RSS after start, before any request: node ${[...nodeFlags, main].join(' ')}, Node ${process.version}, ${starts} start(s) each; MB, median (min-max).`,
  '',
  `| Settings | When it says it listens | ${settleMs / 1000} s later | of which anonymous | of which file-backed |`,
  '|---|---:|---:|---:|---:|',
];
const measured: Array<{ name: string; args: string[]; env: Record<string, string>; listening: RegExp }> = [
  ...SETTINGS.map(({ name, env }) => ({ name, args: [...nodeFlags, main], env, listening: LISTENING })),
  // The floor any Node process starts from, with the same flags.
  {
    name: 'bare `node`, the same flags',
    args: [...nodeFlags, '-e', "console.log('ready'); setInterval(() => {}, 1000)"],
    env: {},
    listening: /^ready$/m,
  },
];
for (const { name, args: nodeArgs, env, listening } of measured) {
  const readings = [];
  for (let i = 0; i < starts; i++) readings.push(await measureStart(nodeArgs, env, listening));
  lines.push(
    `| ${name} | ${mb(readings.map((r) => r.atListening.rss))} | ${mb(readings.map((r) => r.settled.rss))} | ${mb(readings.map((r) => r.settled.anonymous))} | ${mb(readings.map((r) => r.settled.fileBacked))} |`,
  );
}
console.log(lines.join('\n'));
