import { Counter, type Registry } from 'prom-client';
import type { Logger } from '../observability/logger.js';

/** The stores that can fail, as labels and in log lines. */
export type StoreName = 'responseCache' | 'persistedQueries' | 'rateLimits';

/** At most one warning per store in this long: a Redis outage under load must not flood the logs. */
const WARN_EVERY_MS = 10_000;

/**
 * Where a store reports that Redis failed it: every failure is counted
 * (`gateway_shared_state_errors_total{store}`), and a warning is logged at most once per store every
 * ten seconds with how many there were since the last one. The line names the error's code or class,
 * never its message, which can name Redis's address.
 */
export class StoreFailures {
  readonly #counter: Counter<'store'>;
  readonly #logger: Logger;
  readonly #since = new Map<StoreName, { at: number; count: number }>();

  constructor(registry: Registry, logger: Logger) {
    this.#logger = logger;
    this.#counter = new Counter({
      name: 'gateway_shared_state_errors_total',
      help: 'Redis commands of the shared stores that failed or timed out; the request went on without them.',
      labelNames: ['store'],
      registers: [registry],
    });
  }

  record(store: StoreName, error: unknown): void {
    this.#counter.inc({ store });
    const now = performance.now();
    const last = this.#since.get(store);
    if (last && now - last.at < WARN_EVERY_MS) {
      last.count++;
      return;
    }
    this.#since.set(store, { at: now, count: 0 });
    this.#logger.warn(
      { store, error: codeOf(error), failuresSinceLastWarning: last?.count ?? 0 },
      'shared state: Redis failed a command; answered without it',
    );
  }
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : 'unknown';
}
