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
 * How long a Redis that timed out a command has to answer a probe (PINGs, one after another, each
 * within the command timeout) before it is held lost: one slow command, or this process's event
 * loop held up past the timeout on a busy machine, is not an outage.
 */
const PROBE_MS = 1_000;

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

/** A command not sent: the Redis node it is for failed another one a moment ago (`cause`). */
class Paused extends Error {
  constructor(override readonly cause: unknown) {
    super('Not sent: Redis failed a command a moment ago');
  }
}

/** One node's pause: until when the stores send it nothing, and the failure that paused them. */
interface Pause {
  until: number;
  by: unknown;
}

/** How many slots a Redis Cluster has, each served by one primary. */
const CLUSTER_SLOTS = 16_384;

/** The node of a single connection (one server, or the primary that Sentinels name): the only one. */
const ONLY_NODE = '';

/**
 * What every Redis store holds: the one connection, the key prefix (REDIS_KEY_PREFIX) and the one
 * way a command of theirs runs, so that a store never handles a Redis failure itself.
 *
 * - A command that fails or times out is reported (`StoreFailures`) and the store answers what it
 *   answers without Redis: a miss, or a count in this process.
 * - After a failure the stores send nothing to the node that failed it for REDIS_PAUSE_MS, or until
 *   it connects again: a Redis that is down or stalls costs a request one command timeout at most,
 *   and the requests after it none. After a timeout the node is probed first, the stores sending it
 *   nothing meanwhile: answered within PROBE_MS, it was slow, not down, and the stores go on; not
 *   answered, it is lost (told to `RedisReach`, and not before), paused, and its connection dropped,
 *   and with it every command still waiting for an answer, so that a Redis that stalls holds
 *   nothing of the gateway's in memory; ioredis reconnects in the background: behind Sentinels, to
 *   the primary they name then. In a Redis Cluster a node is a primary, the one that serves the
 *   command's slot: the others' slots go on being served while it is paused and its connection made again.
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
  /** The nodes the stores send nothing to for now, by `host:port` in a Redis Cluster, or `ONLY_NODE`. */
  readonly #pauses = new Map<string, Pause>();
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
      this.#pauses.clear();
      this.#connectedAgain();
    });
    // A node's connection is made again after a failure, each time ready anew.
    if (redis instanceof Cluster) {
      redis.on('+node', (node: Redis) =>
        node.on('ready', () => {
          void this.#measureClock(node);
          this.#pauses.delete(nodeKey(node));
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

  /**
   * Whether the stores can send every command: the one connection is ready, or in a Redis Cluster
   * every slot has a primary whose connection is ready. Judged by the slots, not by the connections
   * ioredis holds, which leave out a primary whose connection ended.
   */
  #ready(): boolean {
    const { redis } = this;
    if (redis.status !== 'ready') return false;
    if (!(redis instanceof Cluster)) return true;
    const ready = new Set(redis.nodes('master').flatMap((node) => (node.status === 'ready' ? [nodeKey(node)] : [])));
    for (let slot = 0; slot < CLUSTER_SLOTS; slot++) {
      const primary = redis.slots[slot]?.[0];
      if (primary === undefined || !ready.has(primary)) return false;
    }
    return true;
  }

  /** A connection became ready: once all are, whoever waits for them is told. */
  #connectedAgain(): void {
    if (!this.#ready()) return;
    this.#reach.reached();
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
    return (keys, args) => this.#send(keys, (deadline) => command.call(this.redis, ...keys, deadline, ...args));
  }

  /** `command`'s answer, or `fallback`'s when Redis failed it or its node is paused (reported as `store`'s). */
  async run<T>(store: StoreName, command: () => Promise<T>, fallback: () => T | Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (error) {
      if (error instanceof Paused) this.#failures.skipped(store, error.cause);
      else this.#failures.record(store, error, timedOut(error));
      return fallback();
    }
  }

  /** Sends a script on `keys` to the node that serves them, unless that node is paused; a failure pauses it. */
  async #send(keys: readonly string[], send: (deadline: number) => Promise<unknown>): Promise<unknown> {
    const cluster = this.redis instanceof Cluster ? this.redis : undefined;
    // Refused before anything is sent: a script whose keys lie in two slots.
    const slot = keys.length > 1 || cluster ? slotOf(keys) : 0;
    const node = cluster?.slots[slot]?.[0] ?? ONLY_NODE;
    const pause = this.#pauses.get(node);
    if (pause && performance.now() < pause.until) throw new Paused(pause.by);
    try {
      return await send(this.#deadline(node));
    } catch (error) {
      this.#failed(node, error);
      throw error;
    }
  }

  #failed(node: string, error: unknown): void {
    const pause = this.#pauses.get(node);
    if (pause && performance.now() < pause.until) return;
    if (!timedOut(error)) {
      this.#pauses.set(node, { until: performance.now() + REDIS_PAUSE_MS, by: error });
      return;
    }
    const probing = { until: Number.POSITIVE_INFINITY, by: error };
    this.#pauses.set(node, probing);
    void this.#probe(node).then((answered) => {
      // The node connected again meanwhile, which ended the pause: what the probe learnt is old news.
      if (this.#pauses.get(node) !== probing) return;
      if (answered) {
        this.#pauses.delete(node);
        return;
      }
      this.#pauses.set(node, { until: performance.now() + REDIS_PAUSE_MS, by: error });
      this.#reach.failed(error);
      // Every command still waiting is dropped with the connection, rather than held until a stalled Redis answers;
      // a connection closed for good (the shared state closed meanwhile) is left so.
      const connection = this.#connectionOf(node);
      if (connection && connection.status !== 'end') connection.disconnect(true);
    });
  }

  /** Whether `node` answers a PING within PROBE_MS, sent again each time one times out. */
  async #probe(node: string): Promise<boolean> {
    const connection = this.#connectionOf(node);
    const until = performance.now() + PROBE_MS;
    while (connection) {
      try {
        await connection.ping();
        return true;
      } catch (error) {
        if (!timedOut(error) || performance.now() >= until) return false;
      }
    }
    return false;
  }

  /** The connection to `node`: the one connection, or in a Redis Cluster that primary's, if ioredis holds one. */
  #connectionOf(node: string): Redis | undefined {
    const { redis } = this;
    return redis instanceof Cluster ? redis.nodes('master').find((primary) => nodeKey(primary) === node) : redis;
  }

  /** When a command sent now to `node` must have run, by that node's clock. */
  #deadline(node: string): number {
    const offset = this.#nodeClockOffsets.get(node) ?? this.#clockOffsetMs;
    return Date.now() + offset + this.#commandTimeoutMs;
  }

  async #measureClock(connection: Redis): Promise<void> {
    try {
      const sent = Date.now();
      const [seconds, micros] = await connection.time();
      this.#clockOffsetMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) - (sent + Date.now()) / 2;
      if (this.redis instanceof Cluster) this.#nodeClockOffsets.set(nodeKey(connection), this.#clockOffsetMs);
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

/** A Redis Cluster node's `host:port`, as ioredis names it in its slots. */
const nodeKey = (node: Redis) => `${node.options.host}:${node.options.port}`;

const timedOut = (error: unknown) => (error as Error | null)?.message === 'Command timed out';
