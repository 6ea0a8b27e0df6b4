// The benchmark's side of its server processes (bench/probe.ts is theirs): each is forked on the
// Node it is given, reports its port once it listens, and answers `usage` over IPC.

import { type ChildProcess, fork } from 'node:child_process';
import type { Usage } from './probe.js';

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  /** CPU so far and peak RSS since the last call. */
  usage(): Promise<Usage>;
}

export interface ForkOptions {
  /** The Node binary, or a wrapper that execs one. */
  execPath: string;
  execArgv?: string[];
  /** Added to this process's environment; NODE_ENV is always production. */
  env?: Record<string, string>;
  /** The child is added here as soon as it is forked, so that it can be stopped even before it listens. */
  track?: ChildProcess[];
}

/** Forks `file` (relative to bench/, or a URL) and resolves once it listens; rejects if it exits first. */
export function forkServer(
  name: string,
  file: string | URL,
  { execPath, execArgv = [], env = {}, track }: ForkOptions,
): Promise<ServerProcess> {
  const child = fork(new URL(file, import.meta.url), [], {
    execPath,
    execArgv,
    env: { ...process.env, ...env, NODE_ENV: 'production' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  track?.push(child);
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${name} exited with code ${code} before it listened`)));
    child.once('message', (message: { port: number }) =>
      resolve({ child, port: message.port, usage: () => ask<Usage>(child, 'usage', 'usage') }),
    );
  });
}

/** Sends `message` to a child and resolves with the `key` of its first answer that has one (or rejects with its `error`). */
export function ask<T>(child: ChildProcess, message: unknown, key: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (answer: Record<string, unknown>) => {
      if (!(key in answer) && !('error' in answer)) return;
      child.off('message', onMessage);
      if ('error' in answer) reject(new Error(String(answer.error)));
      else resolve(answer[key] as T);
    };
    child.on('message', onMessage);
    child.send(message as object);
  });
}
