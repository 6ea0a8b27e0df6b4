import { Counter, type Registry } from 'prom-client';
import type { Logger } from '../observability/logger.js';

/** The stores that can fail, as labels and in log lines. */
export type StoreName = 'responseCache' | 'persistedQueries' | 'rateLimits' | 'idempotencyKeys';

/** At most one warning per store in this long: a Redis outage under load must not flood the logs. */
const WARN_EVERY_MS = 10_000;

/**
 * Where a store reports that it answered without Redis: every time is counted
 * (`gateway_shared_state_errors_total{store}`), a command that timed out once more
 * (`gateway_shared_state_timeouts_total{store}`), and a warning is logged at most once per store
 * every ten seconds with how many there were since the last one. The line names the error's code or
 * class, never its message, which can name Redis's address.
 */
export class StoreFailures {
  readonly #errors: Counter<'store'>;
  readonly #timeouts: Counter<'store'>;
  readonly #logger: Logger;
  readonly #since = new Map<StoreName, { at: number; count: number }>();

  constructor(registry: Registry, logger: Logger) {
    this.#logger = logger;
    this.#errors = new Counter({
      name: 'gateway_shared_state_errors_total',
      help: 'Commands of the shared stores that Redis failed, timed out or was not sent (Redis was failing); the request went on without them.',
      labelNames: ['store'],
      registers: [registry],
    });
    this.#timeouts = new Counter({
      name: 'gateway_shared_state_timeouts_total',
      help: 'Commands of the shared stores that Redis did not answer within REDIS_COMMAND_TIMEOUT_MS.',
      labelNames: ['store'],
      registers: [registry],
    });
  }

  /** A command Redis failed, or did not answer in time. */
  record(store: StoreName, error: unknown, timedOut: boolean): void {
    this.#errors.inc({ store });
    if (timedOut) this.#timeouts.inc({ store });
    this.#warn(store, redisErrorCode(error));
  }

  /** A command not sent, since Redis had just failed another (whose error is `cause`'s). */
  skipped(store: StoreName, cause: unknown): void {
    this.#errors.inc({ store });
    this.#warn(store, redisErrorCode(cause));
  }

  #warn(store: StoreName, error: string): void {
    const now = performance.now();
    const last = this.#since.get(store);
    if (last && now - last.at < WARN_EVERY_MS) {
      last.count++;
      return;
    }
    this.#since.set(store, { at: now, count: 0 });
    this.#logger.warn(
      { store, error, failuresSinceLastWarning: last?.count ?? 0 },
      'shared state: Redis failed a command; answered without it',
    );
  }
}

/**
 * What a log line names of a Redis failure: its code, never its message (which can name Redis's
 * address). A system error's code (ECONNREFUSED, ETIMEDOUT), a Redis error reply's (WRONGPASS,
 * NOAUTH, READONLY, ERR…: the first word of the reply), COMMAND_TIMEOUT for a command past
 * REDIS_COMMAND_TIMEOUT_MS; of a Redis Cluster none of whose nodes answered, its last node's.
 */
export function redisErrorCode(error: unknown): string {
  const failure = (error as { lastNodeError?: unknown } | null)?.lastNodeError ?? error;
  const { code, name, message } = (failure ?? {}) as { code?: unknown; name?: unknown; message?: unknown };
  if (typeof code === 'string') return code;
  if (message === 'Command timed out') return 'COMMAND_TIMEOUT';
  if (name === 'ReplyError' && typeof message === 'string') return /^[A-Z]+\b/.exec(message)?.[0] ?? name;
  return failure instanceof Error ? failure.name : 'unknown';
}
