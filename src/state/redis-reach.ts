import { Cluster, type Redis } from 'ioredis';
import { Gauge, type Registry } from 'prom-client';
import type { Logger } from '../observability/logger.js';
import { redisErrorCode } from './store-failures.js';

/**
 * Why Redis is not reached: it refused the password; behind Sentinels, they refused it or know no
 * primary of REDIS_SENTINEL_MASTER; or anything else (refused, closed or timed-out connections).
 */
type Failure = 'authentication' | 'sentinelAuthentication' | 'sentinelMaster' | 'connection';

/** The lines of the failures that are settings to fix, not outages to wait out (logged at error). */
const SETTING_FAILURES: Partial<Record<Failure, string>> = {
  authentication: 'shared state: Redis refused the password; serving without it',
  sentinelAuthentication: 'shared state: the Sentinels refused the password; serving without it',
  sentinelMaster: 'shared state: the Sentinels know no primary of REDIS_SENTINEL_MASTER; serving without it',
};

/** The order in which the failures of the Sentinels tell what is wrong: the first one met is told. */
const SENTINEL_FAILURES: readonly Failure[] = ['sentinelMaster', 'sentinelAuthentication', 'connection'];

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
 * - Behind Sentinels, once none of them named a primary: `shared state: the Sentinels refused the
 *   password; serving without it` or `shared state: the Sentinels know no primary of
 *   REDIS_SENTINEL_MASTER; serving without it` (error), or the connection lines above with the
 *   code of the Sentinels' connections (ECONNREFUSED, …).
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
    redis.on('close', () => this.#closed());
    if (redis instanceof Cluster) {
      redis.on('error', (error: unknown) => this.failed(error));
      redis.on('node error', (error: unknown) => this.failed(error));
      redis.on('+node', (node: Redis) => node.on('close', () => ready() || this.#closed()));
    } else if (redis.options.sentinels) {
      this.#watchSentinels(redis);
    } else {
      redis.on('error', (error: unknown) => this.failed(error));
    }
  }

  /**
   * ioredis asks the Sentinels in turn which primary to connect to, and reports each one that does
   * not name it (`sentinelError`), then, once none did, an error of its own that names no cause;
   * each Sentinel's failure is kept until then, and the one that tells most is told.
   */
  #watchSentinels(redis: Redis): void {
    const met = new Map<Failure, string>();
    redis.on('sentinelError', (error: unknown) => {
      const { failure, code } = sentinelFailure(error);
      if (!met.has(failure)) met.set(failure, code);
    });
    redis.on('error', (error: unknown) => {
      if (!(error instanceof Error && error.message.startsWith(ALL_SENTINELS_FAILED))) return this.failed(error);
      const failure = SENTINEL_FAILURES.find((kind) => met.has(kind));
      if (failure) this.#lost(failure, met.get(failure)!);
      met.clear();
    });
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
    const setting = SETTING_FAILURES[failure];
    if (setting) {
      this.#logger.error({ error: code }, setting);
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

/** How ioredis's error begins once no Sentinel named a primary (SentinelConnector). */
const ALL_SENTINELS_FAILED = 'All sentinels are unreachable';

/** ioredis's own messages of a Sentinel's connection (a refused one closes, its error unseen), by their code. */
const SENTINEL_CAUSES = { 'Connection is closed.': CONNECTION_CLOSED, 'Command timed out': 'COMMAND_TIMEOUT' } as const;

/**
 * What one Sentinel's failure was, from the message of ioredis's `sentinelError`, which keeps
 * neither the error nor its code (SentinelConnector): `… because <the error's message>`, whose
 * first word is a Redis reply's code (WRONGPASS, NOAUTH, ERR) or follows `connect` (ECONNREFUSED);
 * a Sentinel that knows no primary of that name answers ioredis's `SENTINEL SENTINELS <name>` with
 * `ERR No such master with that name` (or its address query with nil: `… but got an invalid reply:
 * null`). Only the code is kept: the message names the Sentinel's address.
 */
function sentinelFailure(error: unknown): { failure: Failure; code: string } {
  const message = error instanceof Error ? error.message : '';
  if (message.endsWith('ERR No such master with that name') || message.endsWith('but got an invalid reply: null'))
    return { failure: 'sentinelMaster', code: 'NO_SUCH_MASTER' };
  const cause = message.slice(message.indexOf(' because ') + ' because '.length);
  const code =
    /^(?:connect )?([A-Z][A-Z_]+)\b/.exec(cause)?.[1] ?? SENTINEL_CAUSES[cause as keyof typeof SENTINEL_CAUSES] ?? 'SENTINEL_ERROR';
  return { failure: code === 'WRONGPASS' || code === 'NOAUTH' ? 'sentinelAuthentication' : 'connection', code };
}
