import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { freePort } from './ports.js';

/** Debian's redis-server (`apt-get install redis-server`, which .ci/run does), or REDIS_SERVER_PATH. */
const REDIS_SERVER = process.env.REDIS_SERVER_PATH ?? 'redis-server';

/** Whether there is a redis-server to start. */
export const redisServerInstalled = () => spawnSync(REDIS_SERVER, ['--version']).status === 0;

export interface RedisServer {
  /** redis://127.0.0.1:<port> (with the password, when one was set). */
  url: string;
  port: number;
  /** Kills the server (SIGKILL) and waits until it is gone: Redis failing, as a crash does. */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty. */
  restart(): Promise<void>;
  /** Stops the process (SIGSTOP): connected, but it answers nothing, as an overloaded Redis does. */
  freeze(): void;
  /** Lets it run again (SIGCONT). */
  thaw(): void;
  close(): Promise<void>;
}

/**
 * A redis-server of its own on a free loopback port, without persistence, stopped by its PID when
 * the test is done. `password` makes it require AUTH.
 */
export async function startRedis({ password }: { password?: string } = {}): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
    if (password) args.push('--requirepass', password);
    child = spawn(REDIS_SERVER, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise<void>((resolve, reject) => {
      let output = '';
      child!.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) resolve();
      });
      child!.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
    });
  };
  const kill = async () => {
    const running = child;
    // Gone already: a process killed by a signal has no exit code, only its signal.
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    url: `redis://${password ? `:${encodeURIComponent(password)}@` : ''}127.0.0.1:${port}`,
    port,
    kill,
    restart: start,
    freeze: () => child?.kill('SIGSTOP'),
    thaw: () => child?.kill('SIGCONT'),
    close: async () => {
      child?.kill('SIGCONT');
      await kill();
    },
  };
}
