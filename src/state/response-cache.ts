import { LRUCache } from 'lru-cache';
import type { RedisLink, StoreScript } from './redis-link.js';

/** An answer kept for a caller, with the name of the operation that gave it (a hit is logged under it), the headers a hit gives back, and when it was kept. */
export interface CachedAnswer {
  body: string;
  operationName: string | undefined;
  headers?: Readonly<Record<string, string>> | undefined;
  /** Date.now() when it was kept: a hit's `max-age` is what is left of it. */
  storedAt: number;
}

/** What a lookup finds: the answer kept, if any, and the caller's generation, which an answer stored after the lookup must still be. */
export interface CacheLookup {
  answer: CachedAnswer | undefined;
  generation: string;
}

/**
 * Answers to reads, per caller. `caller` is a `callerKey`, `request` a hash of what was asked; an
 * answer is found again only by the same caller for the same request within its time to live.
 * `dropCaller` forgets every answer of one caller at once (a mutation of theirs) and starts the
 * caller's next generation: an answer looked up before the drop, and read from the upstream before
 * it, is not stored after it (`set` is given the generation its lookup found).
 */
export interface ResponseCache {
  get(caller: string, request: string): Promise<CacheLookup>;
  set(caller: string, request: string, answer: CachedAnswer, ttlMs: number, generation: string): Promise<void>;
  dropCaller(caller: string): Promise<void>;
}

/** The generation of a caller whose answers were never dropped (or whose drop was forgotten long since). */
const FIRST_GENERATION = '0';

interface StoredAnswer extends CachedAnswer {
  /** Date.now() time. */
  expires: number;
  bytes: number;
}

/** One caller's answers, oldest first: they all live as long (CACHE_TTL_MS), so the first to expire is first. */
interface CallerAnswers {
  generation: string;
  answers: Map<string, StoredAnswer>;
  bytes: number;
}

/** The heap an answer holds: its text, two bytes a character at most, its key and name, and the entries' own share. */
const answerBytes = (request: string, { body, operationName, headers }: CachedAnswer) =>
  2 * (request.length + body.length + (operationName?.length ?? 0) + (headers ? JSON.stringify(headers).length : 0)) + 100;

/**
 * The answers in this process's memory, grouped by caller so that dropping one caller's answers is
 * one step: at most `maxBytes` in all, the least recently used caller's answers dropped first, and
 * no answer above a 64th of it. A write sheds that caller's expired answers, oldest first, and
 * costs the same however many answers the caller has.
 */
export class InProcessResponseCache implements ResponseCache {
  readonly #callers: LRUCache<string, CallerAnswers>;
  readonly #maxEntryBytes: number;
  #generations = 0;

  constructor(maxBytes: number) {
    this.#maxEntryBytes = Math.floor(maxBytes / 64);
    this.#callers = new LRUCache<string, CallerAnswers>({ maxSize: maxBytes, sizeCalculation: (entry) => entry.bytes });
  }

  async get(caller: string, request: string): Promise<CacheLookup> {
    const entry = this.#callers.get(caller);
    const stored = entry?.answers.get(request);
    const answer =
      stored && stored.expires > Date.now()
        ? { body: stored.body, operationName: stored.operationName, headers: stored.headers, storedAt: stored.storedAt }
        : undefined;
    return { answer, generation: entry?.generation ?? FIRST_GENERATION };
  }

  async set(caller: string, request: string, answer: CachedAnswer, ttlMs: number, generation: string): Promise<void> {
    if (2 * answer.body.length > this.#maxEntryBytes) return;
    const bytes = answerBytes(request, answer);
    const entry = this.#callers.get(caller) ?? { generation: FIRST_GENERATION, answers: new Map(), bytes: 2 * caller.length + 100 };
    if (entry.generation !== generation) return;
    const now = Date.now();
    // Taken out and set anew, so that it goes last among the caller's answers, as the last to expire.
    for (const key of [request, ...expiredFirst(entry.answers, now)]) {
      const old = entry.answers.get(key);
      if (!old) continue;
      entry.answers.delete(key);
      entry.bytes -= old.bytes;
    }
    entry.answers.set(request, { ...answer, expires: now + ttlMs, bytes });
    entry.bytes += bytes;
    this.#keep(caller, entry);
  }

  async dropCaller(caller: string): Promise<void> {
    this.#keep(caller, { generation: String(++this.#generations), answers: new Map(), bytes: 2 * caller.length + 100 });
  }

  /** Taken out and set again: lru-cache sizes an entry only when it is set with another value than the one it holds. */
  #keep(caller: string, entry: CallerAnswers): void {
    this.#callers.delete(caller);
    this.#callers.set(caller, entry);
  }
}

/** The keys of the answers expired at `now`, from the oldest: they lead the map, which holds the answers in the order they expire. */
function* expiredFirst(answers: Map<string, StoredAnswer>, now: number): Generator<string> {
  for (const [key, { expires }] of answers) {
    if (expires > now) return;
    yield key;
  }
}

/** A lookup: the answer, unless past its expiry (on Redis's clock), and the caller's generation. */
const GET = `
local generation = redis.call('GET', KEYS[3]) or '${FIRST_GENERATION}'
local expires = redis.call('ZSCORE', KEYS[2], ARGV[2])
if not expires or tonumber(expires) <= now_ms then return {false, generation} end
return {redis.call('HGET', KEYS[1], ARGV[2]), generation}
`;

/** A write, unless the caller's answers were dropped since its lookup; it sheds up to 100 of the caller's expired answers. */
const SET = `
if (redis.call('GET', KEYS[3]) or '${FIRST_GENERATION}') ~= ARGV[5] then return 0 end
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now_ms, 'LIMIT', 0, 100)
if #expired > 0 then
  redis.call('HDEL', KEYS[1], unpack(expired))
  redis.call('ZREM', KEYS[2], unpack(expired))
end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[2], now_ms + tonumber(ARGV[4]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return 1
`;

/** A drop: every answer of the caller, and the next generation, remembered for a day (longer than any request lives). */
const DROP = `
redis.call('INCR', KEYS[3])
redis.call('PEXPIRE', KEYS[3], 86400000)
return redis.call('DEL', KEYS[1], KEYS[2])
`;

/**
 * The answers in Redis, three keys per caller in one slot: a hash of the answers by request
 * (`<prefix>cache:{<caller>}:answers`), each the operation's name, when it was kept, the headers a
 * hit gives back (JSON) and the answer, a line each; their
 * expiries by Redis's clock, a sorted set (`…:expiries`), which a write sheds the expired answers
 * by; and the caller's generation (`…:generation`). Lookups, writes and drops are one script each.
 * Any failure is a miss, and a write not made.
 */
export class RedisResponseCache implements ResponseCache {
  readonly #link: RedisLink;
  readonly #get: StoreScript;
  readonly #set: StoreScript;
  readonly #drop: StoreScript;

  constructor(link: RedisLink) {
    this.#link = link;
    this.#get = link.script('vmsCacheGet', 3, GET);
    this.#set = link.script('vmsCacheSet', 3, SET);
    this.#drop = link.script('vmsCacheDrop', 3, DROP);
  }

  async get(caller: string, request: string): Promise<CacheLookup> {
    const found = await this.#link.run(
      'responseCache',
      () => this.#get(this.#keys(caller), [request]),
      () => null,
    );
    if (!Array.isArray(found)) return { answer: undefined, generation: FAILED_LOOKUP };
    const [stored, generation] = found as [string | null, string];
    if (stored === null) return { answer: undefined, generation };
    const [operationName, storedAt, headers, ...body] = stored.split('\n');
    // An entry in another layout (one an older gateway kept) is a miss, never read askew.
    if (!/^\d{13}$/.test(storedAt ?? '')) return { answer: undefined, generation };
    return {
      answer: {
        operationName: operationName || undefined,
        headers: headers ? JSON.parse(headers) : undefined,
        body: body.join('\n'),
        storedAt: Number(storedAt),
      },
      generation,
    };
  }

  async set(caller: string, request: string, answer: CachedAnswer, ttlMs: number, generation: string): Promise<void> {
    if (generation === FAILED_LOOKUP) return;
    const stored = `${answer.operationName ?? ''}\n${answer.storedAt}\n${answer.headers ? JSON.stringify(answer.headers) : ''}\n${answer.body}`;
    await this.#link.run(
      'responseCache',
      () => this.#set(this.#keys(caller), [request, stored, ttlMs, generation]),
      () => null,
    );
  }

  async dropCaller(caller: string): Promise<void> {
    await this.#link.run(
      'responseCache',
      () => this.#drop(this.#keys(caller), []),
      () => null,
    );
  }

  #keys(caller: string): string[] {
    return [
      this.#link.key('cache', caller, 'answers'),
      this.#link.key('cache', caller, 'expiries'),
      this.#link.key('cache', caller, 'generation'),
    ];
  }
}

/** The generation of a lookup Redis did not answer: no write may follow it, since a drop may have been missed. */
const FAILED_LOOKUP = 'unknown';
