import calculateSlot from 'cluster-key-slot';
import { Cluster, type Redis } from 'ioredis';
import type { RedisReach } from './redis-reach.js';
import type { StoreFailures, StoreName } from './store-failures.js';

/**
 * The Redis the stores share: one connection to one server or to the primary that Sentinels name
 * (ioredis asks them again on each reconnection), or a Redis Cluster, a connection per node.
 */
export type RedisConnection = Redis | Cluster;

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

/**
 * A store's command: a Lua script run atomically on its keys, which lie in one Redis Cluster slot,
 * the deadline first among its arguments.
 */
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
 *   reconnects in the background: behind Sentinels, to the primary they name then; in a Redis
 *   Cluster, every node's connection is dropped (`Cluster.disconnect(true)`), and the cluster
 *   reconnects and reads its slots again, the node that stalled left out until it answers.
 * - Every command is a script that carries its deadline (`DEADLINE_CHECK`): nothing that timed out
 *   runs late.
 */
export class RedisLink {
  readonly #failures: StoreFailures;
  readonly #reach: RedisReach;
  readonly #commandTimeoutMs: number;
  /**
   * The clock of the Redis last measured minus this process's, measured each time a connection is
   * ready: one server's, or the primary's that Sentinels name; in a Redis Cluster, the offset of a
   * node not measured yet.
   */
  #clockOffsetMs = 0;
  /** In a Redis Cluster, each node's clock minus this process's, by the node's `host:port`: their clocks are their own. */
  readonly #nodeClockOffsets = new Map<string, number>();
  #pausedUntil = 0;
  /** The failure that paused the stores, which a command not sent meanwhile is reported with. */
  #pausedBy: unknown;
  /** Who waits for `connected`. */
  readonly #waiting: Array<() => void> = [];

  constructor(
    readonly redis: RedisConnection,
    readonly prefix: string,
    failures: StoreFailures,
    reach: RedisReach,
    commandTimeoutMs: number,
  ) {
    this.#failures = failures;
    this.#reach = reach;
    reach.watch(redis, () => this.#ready());
    this.#commandTimeoutMs = commandTimeoutMs;
    redis.on('ready', () => {
      if (!(redis instanceof Cluster)) void this.#measureClock(redis);
      this.#connectedAgain();
    });
    // A node's connection is made once, and never made again: ioredis makes a new one.
    if (redis instanceof Cluster) {
      redis.on('+node', (node: Redis) =>
        node.once('ready', () => {
          void this.#measureClock(node);
          this.#connectedAgain();
        }),
      );
    }
  }

  /**
   * Resolves once every connection the stores send to is ready: the one connection, or in a Redis
   * Cluster the cluster's and each primary's (ioredis refuses a command for a node still connecting).
   */
  connected(): Promise<void> {
    return this.#ready() ? Promise.resolve() : new Promise((resolve) => this.#waiting.push(resolve));
  }

  #ready(): boolean {
    const { redis } = this;
    return redis.status === 'ready' && (!(redis instanceof Cluster) || redis.nodes('master').every((node) => node.status === 'ready'));
  }

  /** A connection became ready: once all are, a pause ends, and whoever waits for them is told. */
  #connectedAgain(): void {
    if (!this.#ready()) return;
    this.#reach.reached();
    this.#pausedUntil = 0;
    for (const resolve of this.#waiting.splice(0)) resolve();
  }

  /**
   * The key of a store's entry, under the prefix: `<prefix><kind>:<id>`, in the slot of its own
   * hash; or `<prefix><kind>:{<id>}:<part>` for the parts of an entry a script uses together, all in
   * the slot of `<id>` (a hash tag: `{<id>}`, since the prefix holds no brace), as a script's keys
   * must be in a Redis Cluster.
   */
  key(kind: string, id: string, part?: string): string {
    return part === undefined ? `${this.prefix}${kind}:${id}` : `${this.prefix}${kind}:{${id}}:${part}`;
  }

  /**
   * A store's script, defined once on the connection; its first argument is given by `run`. Its
   * keys must lie in one slot (`key`), on every topology: a Redis Cluster would refuse the script
   * otherwise (CROSSSLOT), so the mistake is refused on one server too, where it would go unseen.
   */
  script(name: string, numberOfKeys: number, lua: string): StoreScript {
    this.redis.defineCommand(name, { numberOfKeys, lua: DEADLINE_CHECK + lua });
    const command = (this.redis as unknown as Record<string, (...args: Array<string | number>) => Promise<unknown>>)[name]!;
    return (keys, args) => command.call(this.redis, ...keys, this.#deadline(keys), ...args);
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
    if (!timedOut) return;
    // Every command still waiting is dropped with the connection, rather than held until a stalled Redis answers.
    this.#reach.failed(error);
    this.redis.disconnect(true);
  }

  /**
   * When a command on `keys` sent now must have run, by the clock of the Redis that runs it: in a
   * Redis Cluster, the node that serves their slot (as ioredis knows the slots).
   */
  #deadline(keys: readonly string[]): number {
    const cluster = this.redis instanceof Cluster ? this.redis : undefined;
    const slot = keys.length > 1 || cluster ? slotOf(keys) : 0;
    const node = cluster?.slots[slot]?.[0];
    const offset = (node === undefined ? undefined : this.#nodeClockOffsets.get(node)) ?? this.#clockOffsetMs;
    return Date.now() + offset + this.#commandTimeoutMs;
  }

  async #measureClock(connection: Redis): Promise<void> {
    try {
      const sent = Date.now();
      const [seconds, micros] = await connection.time();
      this.#clockOffsetMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) - (sent + Date.now()) / 2;
      if (this.redis instanceof Cluster)
        this.#nodeClockOffsets.set(`${connection.options.host}:${connection.options.port}`, this.#clockOffsetMs);
    } catch {
      // Measured again on the next connection; meanwhile the last offset stands.
    }
  }
}

/** The one Redis Cluster slot of a script's keys; a script whose keys lie in two is refused with Redis Cluster's own code. */
function slotOf(keys: readonly string[]): number {
  const slot = calculateSlot(keys[0]!);
  for (let i = 1; i < keys.length; i++) {
    if (calculateSlot(keys[i]!) !== slot)
      throw Object.assign(new Error("A store's script names keys of two Redis Cluster slots"), { code: 'CROSSSLOT' });
  }
  return slot;
}
