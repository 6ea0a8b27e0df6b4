import type { Redis } from 'ioredis';
import type { StoreFailures, StoreName } from './store-failures.js';

/** How long the stores send nothing to a Redis that failed a command, unless it connects again first. */
const REDIS_PAUSE_MS = 1_000;

/**
 * Opens every script: a command Redis runs after its deadline (ARGV[1], milliseconds by Redis's own
 * clock) does nothing and answers nil. A command the gateway gave up on may still reach a Redis that
 * stalled, once it runs again; this way it never changes anything late. The script after it has
 * Redis's time as `now_ms`.
 */
const DEADLINE_CHECK = `
redis.replicate_commands()
local clock = redis.call('TIME')
local now_ms = clock[1] * 1000 + math.floor(clock[2] / 1000)
if now_ms > tonumber(ARGV[1]) then return nil end
`;

/** A store's command: a Lua script run atomically on its keys, the deadline first among its arguments. */
export type StoreScript = (keys: readonly string[], args: ReadonlyArray<string | number>) => Promise<unknown>;

/**
 * What every Redis store holds: the one connection, the key prefix (REDIS_KEY_PREFIX) and the one
 * way a command of theirs runs, so that a store never handles a Redis failure itself.
 *
 * - A command that fails or times out is reported (`StoreFailures`) and the store answers what it
 *   answers without Redis: a miss, or a count in this process.
 * - After a failure the stores send nothing to Redis for REDIS_PAUSE_MS, or until it connects again:
 *   a Redis that is down or stalls costs a request one command timeout at most, and the requests
 *   after it none. A timeout also drops the connection, and with it every command still waiting for
 *   an answer, so that a Redis that stalls holds nothing of the gateway's in memory; ioredis
 *   reconnects in the background.
 * - Every command is a script that carries its deadline (`DEADLINE_CHECK`): nothing that timed out
 *   runs late.
 */
export class RedisLink {
  readonly #failures: StoreFailures;
  readonly #commandTimeoutMs: number;
  /** Redis's clock minus this process's, measured each time the connection is ready. */
  #clockOffsetMs = 0;
  #pausedUntil = 0;
  /** The failure that paused the stores, which a command not sent meanwhile is reported with. */
  #pausedBy: unknown;

  constructor(
    readonly redis: Redis,
    readonly prefix: string,
    failures: StoreFailures,
    commandTimeoutMs: number,
  ) {
    this.#failures = failures;
    this.#commandTimeoutMs = commandTimeoutMs;
    redis.on('ready', () => {
      this.#pausedUntil = 0;
      void this.#measureClock();
    });
  }

  /**
   * The key of a store's entry, under the prefix: `<prefix><kind>:<id>`, or `<prefix><kind>:{<id>}:<part>`
   * for the parts of an entry a script uses together, which Redis Cluster then keeps in one slot.
   */
  key(kind: string, id: string, part?: string): string {
    return part === undefined ? `${this.prefix}${kind}:${id}` : `${this.prefix}${kind}:{${id}}:${part}`;
  }

  /** A store's script, defined once on the connection; its first argument is given by `run`. */
  script(name: string, numberOfKeys: number, lua: string): StoreScript {
    this.redis.defineCommand(name, { numberOfKeys, lua: DEADLINE_CHECK + lua });
    const command = (this.redis as unknown as Record<string, (...args: Array<string | number>) => Promise<unknown>>)[name]!;
    return (keys, args) => command.call(this.redis, ...keys, this.#deadline(), ...args);
  }

  /** `command`'s answer, or `fallback`'s when Redis failed it or is paused (reported as `store`'s). */
  async run<T>(store: StoreName, command: () => Promise<T>, fallback: () => T | Promise<T>): Promise<T> {
    if (performance.now() < this.#pausedUntil) {
      this.#failures.skipped(store, this.#pausedBy);
      return fallback();
    }
    try {
      return await command();
    } catch (error) {
      this.#failed(store, error);
      return fallback();
    }
  }

  #failed(store: StoreName, error: unknown): void {
    const timedOut = (error as Error | null)?.message === 'Command timed out';
    this.#failures.record(store, error, timedOut);
    if (performance.now() < this.#pausedUntil) return;
    this.#pausedUntil = performance.now() + REDIS_PAUSE_MS;
    this.#pausedBy = error;
    // Every command still waiting is dropped with the connection, rather than held until a stalled Redis answers.
    if (timedOut) this.redis.disconnect(true);
  }

  /** When a command sent now must have run, by Redis's clock. */
  #deadline(): number {
    return Date.now() + this.#clockOffsetMs + this.#commandTimeoutMs;
  }

  async #measureClock(): Promise<void> {
    try {
      const sent = Date.now();
      const [seconds, micros] = await this.redis.time();
      this.#clockOffsetMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) - (sent + Date.now()) / 2;
    } catch {
      // Measured again on the next connection; meanwhile the last offset stands.
    }
  }
}
