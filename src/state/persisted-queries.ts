import { LRUCache } from 'lru-cache';
import type { RedisLink, StoreScript } from './redis-link.js';

/** Automatic persisted queries: document text by its SHA-256, registered by clients. */
export interface PersistedQueryStore {
  get(hash: string): Promise<string | undefined>;
  set(hash: string, text: string): Promise<void>;
}

/**
 * Heap the store holds per entry beyond its two strings: lru-cache's Map entry and its slots in
 * five arrays, which keep the room of the most entries ever held. Measured by registering 30,000
 * to 100,000 tiny texts through stores of 1 to 8 MiB: 120 to 160 bytes.
 */
const ENTRY_OVERHEAD_BYTES = 192;

/**
 * The heap one entry holds: its hash and its text as V8 strings, and the cache's own share. Yoga's
 * count, the text's UTF-8 bytes and the hash's 64, was about a third of it for small texts
 * (130,000 tiny registrations grew the heap by 26.5 MiB against a budget of 8).
 */
export function apqEntryBytes(hash: string, text: string): number {
  return stringBytes(hash) + stringBytes(text) + ENTRY_OVERHEAD_BYTES;
}

/**
 * A V8 string: a 16-byte header, then one byte a character, or two once any character is outside
 * Latin-1 (counted as two for any non-ASCII text: a little over, never under).
 */
function stringBytes(text: string): number {
  const width = Buffer.byteLength(text) === text.length ? 1 : 2;
  return 16 + Math.ceil((text.length * width) / 8) * 8;
}

/** The documents in this process's memory: at most `maxBytes` of heap as `apqEntryBytes` counts it, least recently used dropped first. */
export class InProcessPersistedQueries implements PersistedQueryStore {
  readonly #documents: LRUCache<string, string>;

  constructor(maxBytes: number) {
    this.#documents = new LRUCache({ maxSize: maxBytes, sizeCalculation: (text, hash) => apqEntryBytes(hash, text) });
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
  readonly #link: RedisLink;
  readonly #get: StoreScript;
  readonly #set: StoreScript;

  constructor(link: RedisLink) {
    this.#link = link;
    this.#get = link.script('vmsApqGet', 1, "return redis.call('GETEX', KEYS[1], 'EX', ARGV[2])");
    this.#set = link.script('vmsApqSet', 1, "return redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])");
  }

  async get(hash: string): Promise<string | undefined> {
    const text = await this.#link.run(
      'persistedQueries',
      () => this.#get([this.#key(hash)], [REDIS_TTL_SECONDS]),
      () => null,
    );
    return typeof text === 'string' ? text : undefined;
  }

  async set(hash: string, text: string): Promise<void> {
    await this.#link.run(
      'persistedQueries',
      () => this.#set([this.#key(hash)], [text, REDIS_TTL_SECONDS]),
      () => null,
    );
  }

  #key(hash: string) {
    return this.#link.key('apq', hash);
  }
}
