import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';

/** Debian's redis-server (`apt-get install redis-server`, which .ci/run does), or REDIS_SERVER_PATH. */
const REDIS_SERVER = process.env.REDIS_SERVER_PATH ?? 'redis-server';

/** Whether there is a redis-server to start. */
export const redisServerInstalled = () => spawnSync(REDIS_SERVER, ['--version']).status === 0;

/** A redis-server process of a test's own, in a folder of its own under the system's temporary folder. */
export interface RedisProcess {
  port: number;
  /** Kills it (SIGKILL) and waits until it is gone: Redis failing, as a crash does. */
  kill(): Promise<void>;
  /** Starts it again on the same port and in the same folder, with the same arguments. */
  restart(): Promise<void>;
  /** Stops the process (SIGSTOP): connected, but it answers nothing, as an overloaded Redis does. */
  freeze(): void;
  /** Lets it run again (SIGCONT). */
  thaw(): void;
  /** Kills it and removes its folder. */
  close(): Promise<void>;
}

/**
 * redis-server with `args` (configuration directives as arguments, or a configuration file first)
 * in `dir`, on `port`, without persistence unless `args` say otherwise, running once it has
 * written `ready`. Killed by its PID, never by name.
 */
export async function runRedisProcess({
  port,
  dir,
  args,
  ready = 'Ready to accept connections',
}: {
  port: number;
  dir: string;
  args: string[];
  ready?: string;
}): Promise<RedisProcess> {
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(REDIS_SERVER, [...args, '--port', String(port), '--bind', '127.0.0.1', '--dir', dir], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await new Promise<void>((resolve, reject) => {
      let output = '';
      child!.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes(ready)) resolve();
      });
      child!.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
    });
  };
  const kill = async () => {
    const running = child;
    // Gone already: a process killed by a signal has no exit code, only its signal.
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGCONT');
    running.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    port,
    kill,
    restart: start,
    freeze: () => child?.kill('SIGSTOP'),
    thaw: () => child?.kill('SIGCONT'),
    close: async () => {
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A folder of its own for a Redis process, under the system's temporary folder. */
export const redisFolder = (what: string) => mkdtemp(join(tmpdir(), `vms-${what}-`));

/** What a data node is started with: no persistence, and a password when given (AUTH, and for its replication). */
export function dataNodeArgs(password: string | undefined): string[] {
  const args = ['--save', '', '--appendonly', 'no'];
  if (password) args.push('--requirepass', password, '--masterauth', password);
  return args;
}

export interface RedisServer extends RedisProcess {
  /** redis://127.0.0.1:<port> (with the password, when one was set). */
  url: string;
}

/**
 * A redis-server of its own on a free loopback port, without persistence, stopped by its PID when
 * the test is done. `password` makes it require AUTH; `args` are further directives (`--replicaof`).
 */
export async function startRedis({ password, args = [] }: { password?: string; args?: string[] } = {}): Promise<RedisServer> {
  const port = await freePort();
  const server = await runRedisProcess({ port, dir: await redisFolder('redis'), args: [...dataNodeArgs(password), ...args] });
  return { ...server, url: `redis://${password ? `:${encodeURIComponent(password)}@` : ''}127.0.0.1:${port}` };
}
