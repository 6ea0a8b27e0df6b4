import { type ChildProcess, spawn } from 'node:child_process';
import { ROOT } from './app-folder.js';
import { podmanCommand } from './image.js';
import { freePort } from './ports.js';

export interface ChildGateway {
  child: ChildProcess;
  /** Port of the "GraphQL gateway listening" line (or, outside production, of the start-up text). */
  port: number;
  /** METRICS_PORT: a free port chosen before start, since under WORKERS>1 a 0 could not be learnt. */
  metricsPort: number;
  /** Every JSON line written to stdout so far. */
  lines: Array<Record<string, unknown>>;
  /** Lines that were not JSON (stdout and stderr). */
  other: string[];
  /** Resolves with the exit code and signal once the process ended and its output was read. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once a line with this `msg` (and count) has been written. */
  waitFor(msg: string, count?: number): Promise<void>;
  /** Kills the process, if it still runs, and resolves once it has exited: for `closedWith`. */
  close(): Promise<void>;
}

/**
 * `src/main.ts` run with tsx as its own process, as `npm start` runs it, configured only by
 * environment variables (`NODE_ENV=production` unless they say otherwise). Its JSON log lines are collected.
 * With `processGroup`, it leads a process group of its own (its cluster workers join it); `nodeArgs`
 * go to node after tsx, so a module they `--import` may be TypeScript.
 */
export async function spawnGateway(
  env: Record<string, string>,
  { processGroup = false, nodeArgs = [] }: { processGroup?: boolean; nodeArgs?: string[] } = {},
): Promise<ChildGateway> {
  const metricsPort = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', ...nodeArgs, 'src/main.ts'], {
    cwd: ROOT,
    // A process group of its own, led by the gateway, as a shell gives a command: a signal to -pid reaches
    // every process of it, as a terminal's Ctrl-C or hangup does.
    detached: processGroup,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: '0',
      METRICS_PORT: String(metricsPort),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return watchGateway(child, metricsPort);
}

/**
 * The gateway in a container: `podman run <args>` in the foreground, configured by its arguments
 * (which set METRICS_PORT to `metricsPort`); its output is what the container writes, collected
 * as spawnGateway's.
 */
export function runContainer(args: string[], metricsPort: number): Promise<ChildGateway> {
  const podman = podmanCommand(['run', ...args]);
  return watchGateway(spawn(podman.command, podman.args, { env: podman.env, stdio: ['ignore', 'pipe', 'pipe'] }), metricsPort);
}

async function watchGateway(child: ChildProcess, metricsPort: number): Promise<ChildGateway> {
  const lines: Array<Record<string, unknown>> = [];
  const other: string[] = [];
  const waiters = new Set<() => void>();
  let buffered = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    const complete = buffered.split('\n');
    buffered = complete.pop()!;
    for (const line of complete) {
      try {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        other.push(line);
      }
    }
    for (const waiter of waiters) waiter();
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => other.push(chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  /** Resolves with what `found` returns once it returns something. */
  const waitUntil = <T>(found: () => T | undefined, what: string) =>
    new Promise<T>((resolve, reject) => {
      const check = () => {
        const value = found();
        if (value === undefined) return;
        waiters.delete(check);
        resolve(value);
      };
      waiters.add(check);
      void exited.then(() => reject(new Error(`the gateway exited before ${what}: ${other.join('')}`)));
      check();
    });
  const waitFor = (msg: string, count = 1) =>
    waitUntil(() => (lines.filter((line) => line.msg === msg).length < count ? undefined : true), `logging "${msg}"`).then(() => {});
  // The JSON line in production; outside production, the plain start-up text.
  const listeningPort = () =>
    (lines.find((line) => line.msg === 'GraphQL gateway listening')?.port as number | undefined) ??
    other.map((line) => /^GraphQL gateway .*listening on http:\/\/[^/]+:(\d+)\//.exec(line)?.[1]).find(Boolean);
  let port: number;
  try {
    port = Number(await waitUntil(listeningPort, 'listening'));
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  return { child, port, metricsPort, lines, other, exited, waitFor, close };
}
