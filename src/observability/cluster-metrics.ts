import cluster from 'node:cluster';
import { randomUUID } from 'node:crypto';
import { AggregatorRegistry, type Registry } from 'prom-client';

// A scrape reaches whichever worker the primary hands the connection to; that worker asks the
// primary, which sums the registries of all workers (prom-client's AggregatorRegistry), so every
// scrape sees the whole process group rather than one worker's share.
const REQUEST = 'gateway:metrics-request';
const REPLY = 'gateway:metrics-reply';

interface Reply {
  type: typeof REPLY;
  id: string;
  text?: string;
  error?: string;
}

/** In a worker: makes `registry` the one the primary collects. */
export function reportToPrimary(registry: Registry): void {
  AggregatorRegistry.setRegistries([registry]);
  // prom-client installs a worker's answering listener when an AggregatorRegistry is constructed.
  new AggregatorRegistry();
}

/** In a worker: the metrics of all workers, summed by the primary. */
export function metricsOfAllWorkers(timeoutMs = 5_000): Promise<string> {
  const id = randomUUID();
  return new Promise((resolve, reject) => {
    const onMessage = (message: Reply) => {
      if (message?.type !== REPLY || message.id !== id) return;
      clearTimeout(timer);
      process.off('message', onMessage);
      if (message.text !== undefined) resolve(message.text);
      else reject(new Error(`the primary could not collect metrics: ${message.error ?? 'no answer'}`));
    };
    const timer = setTimeout(() => onMessage({ type: REPLY, id, error: 'timed out' }), timeoutMs);
    process.on('message', onMessage);
    process.send!({ type: REQUEST, id });
  });
}

/** In the primary: answers the workers' requests for the summed metrics. */
export function serveMetricsToWorkers(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: { type?: unknown; id?: unknown }) => {
    if (message?.type !== REQUEST || typeof message.id !== 'string') return;
    const id = message.id;
    aggregator.clusterMetrics().then(
      (text) => worker.isConnected() && worker.send({ type: REPLY, id, text } satisfies Reply),
      (error: Error) => worker.isConnected() && worker.send({ type: REPLY, id, error: error.message } satisfies Reply),
    );
  });
}
