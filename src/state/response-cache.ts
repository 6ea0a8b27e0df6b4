import { LRUCache } from 'lru-cache';
import type { RedisLink, StoreScript } from './redis-link.js';

/**
 * Answers to reads, per caller. `caller` is a `callerKey`, `request` a hash of what was asked; an
 * answer is found again only by the same caller for the same request within its time to live, and
 * `dropCaller` forgets every answer of one caller at once (a mutation of theirs).
 */
export interface ResponseCache {
  get(caller: string, request: string): Promise<string | undefined>;
  set(caller: string, request: string, body: string, ttlMs: number): Promise<void>;
  dropCaller(caller: string): Promise<void>;
}

interface StoredAnswer {
  body: string;
  /** Date.now() time. */
  expires: number;
}

/**
 * The answers in this process's memory, grouped by caller so that dropping one caller's answers is
 * one delete: at most `maxBytes` in all, the least recently used caller's answers dropped first, and
 * no answer above a 64th of it.
 */
export class InProcessResponseCache implements ResponseCache {
  readonly #callers: LRUCache<string, Map<string, StoredAnswer>>;
  readonly #maxEntryBytes: number;

  constructor(maxBytes: number) {
    this.#maxEntryBytes = Math.floor(maxBytes / 64);
    this.#callers = new LRUCache<string, Map<string, StoredAnswer>>({ maxSize: maxBytes, sizeCalculation: sizeOf });
  }

  async get(caller: string, request: string): Promise<string | undefined> {
    const answer = this.#callers.get(caller)?.get(request);
    return answer && answer.expires > Date.now() ? answer.body : undefined;
  }

  async set(caller: string, request: string, body: string, ttlMs: number): Promise<void> {
    if (2 * body.length > this.#maxEntryBytes) return;
    const now = Date.now();
    const answers = this.#callers.get(caller) ?? new Map<string, StoredAnswer>();
    for (const [key, { expires }] of answers) if (expires <= now) answers.delete(key);
    answers.set(request, { body, expires: now + ttlMs });
    // Taken out and set again, so that the cache measures the caller's answers as they now are:
    // lru-cache sizes an entry only when it is set with another value than the one it holds.
    this.#callers.delete(caller);
    this.#callers.set(caller, answers);
  }

  async dropCaller(caller: string): Promise<void> {
    this.#callers.delete(caller);
  }
}

/** The heap one caller's answers hold: their text, two bytes a character at most, and their keys. */
function sizeOf(answers: Map<string, StoredAnswer>, caller: string): number {
  let bytes = 2 * caller.length + 100;
  for (const [request, { body }] of answers) bytes += 2 * (request.length + body.length) + 100;
  return bytes;
}

/**
 * The answers in Redis: one hash per caller (`<prefix>cache:<caller>`), a field per request holding
 * when it was stored and the answer, so that a read is one command and dropping a caller's answers
 * is one DEL. The hash lives as long as its newest answer; an older answer past its own time to live
 * is not served. Any failure is a miss.
 */
export class RedisResponseCache implements ResponseCache {
  readonly #link: RedisLink;
  readonly #get: StoreScript;
  readonly #set: StoreScript;
  readonly #drop: StoreScript;

  constructor(link: RedisLink) {
    this.#link = link;
    this.#get = link.script('vmsCacheGet', 1, "return redis.call('HGET', KEYS[1], ARGV[2])");
    this.#set = link.script(
      'vmsCacheSet',
      1,
      "redis.call('HSET', KEYS[1], ARGV[2], ARGV[3]) redis.call('PEXPIRE', KEYS[1], ARGV[4]) return 1",
    );
    this.#drop = link.script('vmsCacheDrop', 1, "return redis.call('DEL', KEYS[1])");
  }

  async get(caller: string, request: string): Promise<string | undefined> {
    const stored = await this.#link.run(
      'responseCache',
      () => this.#get([this.#key(caller)], [request]),
      () => null,
    );
    if (typeof stored !== 'string') return undefined;
    const newline = stored.indexOf('\n');
    return Number(stored.slice(0, newline)) > Date.now() ? stored.slice(newline + 1) : undefined;
  }

  async set(caller: string, request: string, body: string, ttlMs: number): Promise<void> {
    const stored = `${Date.now() + ttlMs}\n${body}`;
    await this.#link.run(
      'responseCache',
      () => this.#set([this.#key(caller)], [request, stored, ttlMs]),
      () => null,
    );
  }

  async dropCaller(caller: string): Promise<void> {
    await this.#link.run(
      'responseCache',
      () => this.#drop([this.#key(caller)], []),
      () => null,
    );
  }

  #key(caller: string) {
    return this.#link.key('cache', caller);
  }
}
