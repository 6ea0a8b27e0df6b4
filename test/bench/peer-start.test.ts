import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, expect, it } from 'vitest';
import { untilAnswering } from '../../bench/peer.js';

/**
 * A peer of `npm run bench` (Mesh, Tailcall) speaks no IPC, so nothing stops it but its PID: one that
 * never answers must be killed by the wait that gave up on it, and one that stops must be named with
 * what it printed, so that the run can skip its rows with the reason and go on.
 */

const started: ChildProcess[] = [];
const node = (script: string) => {
  const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
  started.push(child);
  return child;
};
// Whatever a test asserted, no child outlives it.
afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill();
});

it('kills a peer that never answers, and says which and what it was asked', async () => {
  const child = node('setInterval(() => {}, 1000)');
  const exited = once(child, 'exit');
  await expect(untilAnswering(child, { name: 'the sleeper', what: '/healthcheck', seconds: 0.5 }, async () => false)).rejects.toThrow(
    'the sleeper did not answer /healthcheck within 0.5 s',
  );
  expect(await exited).toEqual([null, 'SIGTERM']);
});

it('names a peer that exits before it answers, with the end of what it printed', async () => {
  const child = node('process.exit(3)');
  await expect(
    untilAnswering(child, { name: 'the quitter', what: '{ __typename }', seconds: 30, output: () => 'npm error 404\n' }, async () => false),
  ).rejects.toThrow('the quitter exited with 3 before it answered: npm error 404');
});

it('names a peer that cannot be started', async () => {
  const child = spawn('/nonexistent/run.sh', [], { stdio: 'ignore' });
  await expect(untilAnswering(child, { name: 'the absent', what: '{ __typename }', seconds: 30 }, async () => false)).rejects.toThrow(
    'the absent could not be started: spawn /nonexistent/run.sh ENOENT',
  );
});

it('resolves once the peer answers', async () => {
  const child = node('setInterval(() => {}, 1000)');
  let asked = 0;
  await untilAnswering(child, { name: 'the peer', what: '/healthcheck', seconds: 30 }, async () => ++asked === 3);
  expect(asked).toBe(3);
});
