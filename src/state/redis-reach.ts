import { Cluster, type Redis } from 'ioredis';
import { Gauge, type Registry } from 'prom-client';
import type { Logger } from '../observability/logger.js';
import { redisErrorCode } from './store-failures.js';

/** Why Redis is not reached: it refused the password, or anything else (refused, closed or timed-out connections). */
type Failure = 'authentication' | 'connection';

/** The code of a connection that Redis closed without an error (a server stopped, a primary switched). */
const CONNECTION_CLOSED = 'CONNECTION_CLOSED';

/**
 * Whether this process reaches the Redis of the shared state, told to the operator: the gauge
 * `gateway_shared_state_up` (1 while every connection the stores send to is ready, 0 otherwise) and
 * a log line at each change, never one per reconnection attempt (ioredis makes one every second
 * while Redis is away, and reports each failure):
 *
 * - `shared state: Redis reached` the first time, `shared state: Redis reached again` after a loss;
 * - `shared state: Redis lost; serving without it` (warn) when a connection that was ready fails or
 *   closes, or `shared state: Redis not reached; serving without it` before it was ever reached,
 *   with the error's code (ECONNREFUSED, ETIMEDOUT, CONNECTION_CLOSED, …);
 * - `shared state: Redis refused the password; serving without it` (error) when Redis answers the
 *   connection's AUTH with WRONGPASS, or a command with NOAUTH: a setting to fix, not an outage to
 *   wait out. Logged once per outage, besides a connection failure's line if it comes first.
 *
 * A line names the error's code, never its message: that can name Redis's address. The password
 * is never in an error of ioredis's.
 */
export class RedisReach {
  readonly #logger: Logger;
  readonly #up: Gauge;
  #state: 'starting' | 'up' | 'down' | 'closed' = 'starting';
  /** The failures logged since Redis was last reached: each is logged once per outage. */
  readonly #told = new Set<Failure>();

  constructor(registry: Registry, logger: Logger) {
    this.#logger = logger;
    this.#up = new Gauge({
      name: 'gateway_shared_state_up',
      help: 'Whether this process reaches the Redis of the shared state now: 1 yes, 0 no (the stores answer without it).',
      registers: [registry],
      // Across workers, each with its connections: 0 as soon as one of them is without Redis.
      aggregator: 'min',
    });
    this.#up.set(0);
  }

  /**
   * Follows `redis`'s connections: their errors and closes. `ready` says whether every connection
   * the stores send to is ready (in a Redis Cluster a node closing matters only if it was one).
   */
  watch(redis: Redis | Cluster, ready: () => boolean): void {
    redis.on('error', (error: unknown) => this.failed(error));
    redis.on('close', () => this.#closed());
    if (redis instanceof Cluster) {
      redis.on('node error', (error: unknown) => this.failed(error));
      redis.on('+node', (node: Redis) => node.on('close', () => ready() || this.#closed()));
    }
  }

  /** Every connection the stores send to is ready. */
  reached(): void {
    if (this.#state === 'up' || this.#state === 'closed') return;
    this.#logger.info(this.#state === 'starting' ? 'shared state: Redis reached' : 'shared state: Redis reached again');
    this.#state = 'up';
    this.#told.clear();
    this.#up.set(1);
  }

  /** A connection failed (an error ioredis reports), or a command timed out, which drops the connection. */
  failed(error: unknown): void {
    const code = redisErrorCode(error);
    this.#lost(code === 'WRONGPASS' || code === 'NOAUTH' ? 'authentication' : 'connection', code);
  }

  /** The shared state is closed: what its connections do next is no news. */
  close(): void {
    this.#state = 'closed';
    this.#up.set(0);
  }

  #closed(): void {
    if (this.#state === 'up') this.#lost('connection', CONNECTION_CLOSED);
  }

  #lost(failure: Failure, code: string): void {
    if (this.#state === 'closed' || this.#told.has(failure)) return;
    if (failure === 'authentication') {
      this.#logger.error({ error: code }, 'shared state: Redis refused the password; serving without it');
    } else {
      const msg =
        this.#state === 'starting' ? 'shared state: Redis not reached; serving without it' : 'shared state: Redis lost; serving without it';
      this.#logger.warn({ error: code }, msg);
    }
    this.#told.add(failure);
    if (this.#state === 'up') this.#state = 'down';
    this.#up.set(0);
  }
}
