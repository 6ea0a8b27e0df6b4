import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { StoreFailures } from './store-failures.js';

/** Automatic persisted queries: document text by its SHA-256, registered by clients. */
export interface PersistedQueryStore {
  get(hash: string): Promise<string | undefined>;
  set(hash: string, text: string): Promise<void>;
}

/**
 * Heap one entry holds besides its text: the LRU's node, the key string and the value string's
 * headers, measured with 130,000 tiny registrations (the text's own characters are counted apart).
 */
const ENTRY_OVERHEAD_BYTES = 200;

/** The documents in this process's memory: at most `maxBytes` by their real cost, least recently used dropped first. */
export class InProcessPersistedQueries implements PersistedQueryStore {
  readonly #documents: LRUCache<string, string>;

  constructor(maxBytes: number) {
    this.#documents = new LRUCache({
      maxSize: maxBytes,
      sizeCalculation: (text, hash) => 2 * (text.length + hash.length) + ENTRY_OVERHEAD_BYTES,
    });
  }

  async get(hash: string): Promise<string | undefined> {
    return this.#documents.get(hash);
  }

  async set(hash: string, text: string): Promise<void> {
    this.#documents.set(hash, text);
  }
}

/** How long a registered document stays in Redis after its last use: clients register again after it. */
const REDIS_TTL_SECONDS = 24 * 60 * 60;

/**
 * The documents in Redis (`<prefix>apq:<hash>`), each kept a day after its last use, so that a
 * document registered through one replica is found through every other. Bounded by Redis's own
 * memory limit and eviction (docs/shared-state.md). Any failure is a miss: the client sends the
 * text again, as after a restart.
 */
export class RedisPersistedQueries implements PersistedQueryStore {
  constructor(
    readonly redis: Redis,
    readonly prefix: string,
    readonly failures: StoreFailures,
  ) {}

  async get(hash: string): Promise<string | undefined> {
    try {
      return (await this.redis.getex(this.#key(hash), 'EX', REDIS_TTL_SECONDS)) ?? undefined;
    } catch (error) {
      this.failures.record('persistedQueries', error);
      return undefined;
    }
  }

  async set(hash: string, text: string): Promise<void> {
    try {
      await this.redis.set(this.#key(hash), text, 'EX', REDIS_TTL_SECONDS);
    } catch (error) {
      this.failures.record('persistedQueries', error);
    }
  }

  #key(hash: string) {
    return `${this.prefix}apq:${hash}`;
  }
}
