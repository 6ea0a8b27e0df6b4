import type { Redis } from 'ioredis';
import type { StoreFailures, StoreName } from './store-failures.js';

/**
 * What every Redis store holds: the one connection, the key prefix (REDIS_KEY_PREFIX) and the one
 * way a command of theirs is run, so that a store never handles a Redis failure itself. A command
 * that fails or times out is reported (`StoreFailures`) and the store answers what it answers
 * without Redis: a miss, or a count in this process.
 */
export class RedisLink {
  constructor(
    readonly redis: Redis,
    readonly prefix: string,
    readonly failures: StoreFailures,
  ) {}

  /** The key of a store's entry, under the prefix: `<prefix><kind>:<id>`. */
  key(kind: string, id: string): string {
    return `${this.prefix}${kind}:${id}`;
  }

  /** `command`'s answer, or `fallback`'s when Redis failed it (reported as `store`'s). */
  async run<T>(store: StoreName, command: (redis: Redis) => Promise<T>, fallback: () => T | Promise<T>): Promise<T> {
    try {
      return await command(this.redis);
    } catch (error) {
      this.failures.record(store, error);
      return fallback();
    }
  }
}
