import cluster, { type Worker } from 'node:cluster';
import { serveMetricsToWorkers } from '../observability/cluster-metrics.js';
import type { Logger } from '../observability/logger.js';
import { STOP_SIGNALS } from './shutdown.js';

/** A worker's message once both its servers listen: a worker listens twice (GraphQL and metrics). */
interface WorkerListening {
  type: 'gateway:worker-listening';
  port: number;
  metricsPort: number;
}

/** In a worker: tells the primary that it serves, and on which ports. */
export function reportListening(port: number, metricsPort: number): void {
  const message: WorkerListening = { type: 'gateway:worker-listening', port, metricsPort };
  process.send?.(message);
}

export interface PrimaryOptions {
  workers: number;
  logger: Logger;
  /** Extra environment for the workers. */
  env: Record<string, string>;
  /** Called once, when all the workers listen, with their ports. */
  onListening(port: number, metricsPort: number): void;
  /** Closes what the primary itself serves (the sandbox), after the last worker exited. */
  cleanup: () => Promise<unknown>;
}

/**
 * Forks `workers` processes that share the listening port (node:cluster hands out connections
 * round-robin). A worker that dies after it was listening is replaced; one that dies before ever
 * listening stops the whole gateway, since its siblings would fail the same way. Each of
 * STOP_SIGNALS becomes a SIGTERM to every worker; each drains its own requests, and the primary
 * exits after the last one.
 */
export function runPrimary({ workers, logger, env, onListening, cleanup }: PrimaryOptions): void {
  const alive = new Set<Worker>();
  const listening = new WeakSet<Worker>();
  let stopping = false;
  let exitCode = 0;
  const fork = () => alive.add(cluster.fork(env));
  const finish = () => void cleanup().finally(() => process.exit(exitCode));

  let ready = 0;
  cluster.on('message', (worker, message: Partial<WorkerListening> | undefined) => {
    if (message?.type !== 'gateway:worker-listening' || listening.has(worker)) return;
    listening.add(worker);
    // Announced once every first worker listens: from then on connections reach all of them.
    if (++ready === workers) onListening(message.port!, message.metricsPort!);
  });
  cluster.on('exit', (worker, code, signal) => {
    alive.delete(worker);
    if (stopping) {
      if (alive.size === 0) finish();
      return;
    }
    if (!listening.has(worker)) {
      logger.fatal({ worker: worker.id, code, signal }, 'a worker exited before it could listen; stopping');
      exitCode = 1;
      stop();
      return;
    }
    logger.error({ worker: worker.id, code, signal }, 'worker exited; starting a replacement');
    fork();
  });

  const stop = (signal?: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    if (signal) logger.info({ signal, workers: alive.size }, 'shutting down the workers');
    for (const worker of alive) worker.process.kill('SIGTERM');
    if (alive.size === 0) finish();
  };
  for (const signal of STOP_SIGNALS) process.on(signal, stop);
  serveMetricsToWorkers();
  for (let i = 0; i < workers; i++) fork();
}
