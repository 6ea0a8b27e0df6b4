import { hash, randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { RedisLink, StoreScript } from './redis-link.js';

/** What a mutation run under a key answered, kept to be given again as it was. */
export interface KeptAnswer {
  /** Its HTTP status. */
  status: number;
  /** The headers the gateway returned with it beside its own (the upstream's listed ones and the gateway's notices); undefined for none. */
  headers: Readonly<Record<string, string>> | undefined;
  /** Whether it held data, and the codes of its errors: what its replay is logged and counted with. */
  hasData: boolean;
  errorCodes: readonly string[];
  /** Its result's JSON text, as an answer in JSON carried it (without the upstream calls it showed). */
  body: string;
}

/** A key as the store knows it: its caller (a `callerKey`) and the SHA-256 of the key the caller sent (`keyOf`). */
export interface IdempotencyKey {
  caller: string;
  key: string;
}

/** `caller`'s key `sent`, as the store knows it: the key hashed, so that no value a client chose is a key or a field of Redis. */
export function keyOf(caller: string, sent: string): IdempotencyKey {
  return { caller, key: hash('sha256', sent, 'base64url') };
}

/**
 * What claiming a key for a request found:
 *
 * - `claimed`: nothing: the key is the request's to run under, held by `token` for `leaseMs`;
 * - `answered`: the answer of a request that ran under it, which was this same request;
 * - `reused`: the key was given to another request (another fingerprint);
 * - `running`: this same request runs under it now, and its lease holds;
 * - `unknown`: this same request ran under it and the upstream may or may not have done it (its
 *   write sent, no answer back), or its run outlived its lease (its gateway went away, or could not
 *   settle it);
 * - `unavailable`: the store could not be asked (Redis failing): nothing is known.
 */
export type Claim =
  | { found: 'claimed'; token: string }
  | { found: 'answered'; answer: KeptAnswer }
  | { found: 'reused' | 'running' | 'unknown' | 'unavailable' };

/** How a claimed key's run ended: answered (its answer kept), unknown (marked so), or never reaching the upstream (the key forgotten). */
export type Settlement = { outcome: 'answered'; answer: KeptAnswer } | { outcome: 'unknown' } | { outcome: 'free' };

/** How long a claim holds, and how long a settled key is remembered. */
export interface KeyTimes {
  /** How long a run may hold the key: past it, an unsettled run's outcome is unknown. */
  leaseMs: number;
  /** How long the key is remembered once settled (IDEMPOTENCY_TTL_MS); an unsettled one, that long after its lease. */
  ttlMs: number;
}

/**
 * Idempotency keys, per caller: which request each key was given to (its fingerprint), whether its
 * run is going on, how it ended, and its answer. `claim` is atomic: of two requests that claim one
 * key at once, in one process or through two replicas, one claims it and the other finds it
 * running. A run's `settle` counts only with the token of its claim.
 */
export interface IdempotencyKeys {
  claim(key: IdempotencyKey, fingerprint: string, times: KeyTimes): Promise<Claim>;
  settle(key: IdempotencyKey, token: string, settlement: Settlement, ttlMs: number): Promise<void>;
}

/** One key in this process's memory. */
interface Entry {
  fingerprint: string;
  state: 'running' | 'answered' | 'unknown';
  /** The claim's, while it runs. */
  token: string | undefined;
  /** Date.now() until which a running claim holds. */
  leaseUntil: number;
  answer: KeptAnswer | undefined;
  /** Date.now() past which the key is forgotten. */
  expires: number;
}

/** The heap an entry holds: its strings, two bytes a character at most, and the entries' own share. */
const entryBytes = (entry: Entry, id: string) =>
  2 *
    (id.length +
      entry.fingerprint.length +
      (entry.token?.length ?? 0) +
      (entry.answer
        ? entry.answer.body.length + JSON.stringify(entry.answer.headers ?? {}).length + entry.answer.errorCodes.join().length
        : 0)) +
  200;

/**
 * The keys in this process's memory (another process never sees them). A key whose run goes on is
 * held apart and never forgotten for want of room, since forgetting it would let a second request
 * run its write; there are as many as mutations under way. Settled keys and their answers take at
 * most `maxBytes`, the least recently used forgotten first (as a restart forgets them all). An answer
 * larger than all of that is not kept: its key is marked unknown, so that its retry is refused,
 * never run again.
 */
export class InProcessIdempotencyKeys implements IdempotencyKeys {
  readonly #running = new Map<string, Entry>();
  readonly #settled: LRUCache<string, Entry>;

  constructor(maxBytes: number) {
    this.#settled = new LRUCache<string, Entry>({ maxSize: maxBytes, sizeCalculation: entryBytes });
  }

  async claim({ caller, key }: IdempotencyKey, fingerprint: string, { leaseMs, ttlMs }: KeyTimes): Promise<Claim> {
    const id = `${caller}:${key}`;
    const now = Date.now();
    const running = this.#running.get(id);
    if (running && running.leaseUntil <= now) {
      // Its run outlived its lease unsettled: unknown from now on, and remembered as settled keys are.
      this.#running.delete(id);
      this.#settle(id, { ...running, state: 'unknown', token: undefined });
    }
    const entry = this.#running.get(id) ?? this.#settled.get(id);
    if (!entry || entry.expires <= now) {
      const token = randomUUID();
      this.#settled.delete(id);
      this.#running.set(id, {
        fingerprint,
        state: 'running',
        token,
        leaseUntil: now + leaseMs,
        answer: undefined,
        expires: now + leaseMs + ttlMs,
      });
      return { found: 'claimed', token };
    }
    if (entry.fingerprint !== fingerprint) return { found: 'reused' };
    if (entry.state === 'answered' && entry.answer) return { found: 'answered', answer: entry.answer };
    if (entry.state === 'running') return { found: 'running' };
    return { found: 'unknown' };
  }

  async settle({ caller, key }: IdempotencyKey, token: string, settlement: Settlement, ttlMs: number): Promise<void> {
    const id = `${caller}:${key}`;
    const entry = this.#running.get(id);
    if (!entry || entry.token !== token) return;
    this.#running.delete(id);
    if (settlement.outcome === 'free') return;
    const answer = settlement.outcome === 'answered' ? settlement.answer : undefined;
    this.#settle(id, { ...entry, state: settlement.outcome, token: undefined, answer, expires: Date.now() + ttlMs });
  }

  /** Remembers a settled key; one whose answer does not fit the store at all, as unknown without it. */
  #settle(id: string, entry: Entry): void {
    const fits = entryBytes(entry, id) <= this.#settled.maxSize;
    this.#settled.set(id, fits ? entry : { ...entry, state: 'unknown', answer: undefined });
  }
}

/**
 * A claim: a key not there is claimed (a hash of its fingerprint, `running`, the claim's token and
 * its lease's end on Redis's clock, expiring a time to live after the lease); one there is read.
 */
const CLAIM = `
local entry = redis.call('HMGET', KEYS[1], 'fingerprint', 'state', 'lease', 'answer')
if not entry[1] then
  redis.call('HSET', KEYS[1], 'fingerprint', ARGV[2], 'state', 'running', 'token', ARGV[3], 'lease', now_ms + tonumber(ARGV[4]))
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]) + tonumber(ARGV[5]))
  return {'claimed'}
end
if entry[1] ~= ARGV[2] then return {'reused'} end
if entry[2] == 'answered' and entry[4] then return {'answered', entry[4]} end
if entry[2] == 'running' and tonumber(entry[3]) > now_ms then return {'running'} end
return {'unknown'}
`;

/** A settlement, by the claim's token only: the key forgotten, or its outcome (and answer) kept for the time to live. */
const SETTLE = `
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[2] then return 0 end
if ARGV[3] == 'free' then return redis.call('DEL', KEYS[1]) end
redis.call('HSET', KEYS[1], 'state', ARGV[3], 'answer', ARGV[5])
redis.call('HDEL', KEYS[1], 'token', 'lease')
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`;

/**
 * The keys in Redis, one hash per key (`<prefix>idempotency:{<caller>}:<sha256 of the key>`): its
 * request's fingerprint, its state (`running`, `answered`, `unknown`), while it runs the claim's
 * token and the lease's end (on Redis's clock), and once answered the answer: its status, whether
 * it held data, its error codes, its headers (JSON) and its body, a line each. A claim and a
 * settlement are one script each. A claim Redis fails is `unavailable`; a settlement it fails
 * leaves the key running until its lease ends, and unknown after that.
 */
export class RedisIdempotencyKeys implements IdempotencyKeys {
  readonly #link: RedisLink;
  readonly #claim: StoreScript;
  readonly #settle: StoreScript;

  constructor(link: RedisLink) {
    this.#link = link;
    this.#claim = link.script('vmsIdempotencyClaim', 1, CLAIM);
    this.#settle = link.script('vmsIdempotencySettle', 1, SETTLE);
  }

  async claim(key: IdempotencyKey, fingerprint: string, { leaseMs, ttlMs }: KeyTimes): Promise<Claim> {
    const token = randomUUID();
    const found = await this.#link.run(
      'idempotencyKeys',
      () => this.#claim([this.#key(key)], [fingerprint, token, leaseMs, ttlMs]),
      () => null,
    );
    if (!Array.isArray(found)) return { found: 'unavailable' };
    const [state, stored] = found as [string, string | undefined];
    if (state === 'claimed') return { found: 'claimed', token };
    if (state === 'answered') {
      const answer = stored === undefined ? undefined : parsedAnswer(stored);
      // An answer in another layout (one another gateway kept) is never read askew, nor run again.
      return answer ? { found: 'answered', answer } : { found: 'unknown' };
    }
    return { found: state === 'reused' || state === 'running' ? state : 'unknown' };
  }

  async settle(key: IdempotencyKey, token: string, settlement: Settlement, ttlMs: number): Promise<void> {
    const answer = settlement.outcome === 'answered' ? storedAnswer(settlement.answer) : '';
    await this.#link.run(
      'idempotencyKeys',
      () => this.#settle([this.#key(key)], [token, settlement.outcome, ttlMs, answer]),
      () => null,
    );
  }

  #key({ caller, key }: IdempotencyKey): string {
    return this.#link.key('idempotency', caller, key);
  }
}

/** An answer as Redis keeps it: status, whether it held data, its codes, its headers, then its body, a line each. */
function storedAnswer({ status, hasData, errorCodes, headers, body }: KeptAnswer): string {
  return `${status}\n${hasData ? 1 : 0}\n${errorCodes.join(',')}\n${headers ? JSON.stringify(headers) : ''}\n${body}`;
}

function parsedAnswer(stored: string): KeptAnswer | undefined {
  const [status, hasData, codes, headers, ...body] = stored.split('\n');
  if (!/^\d{3}$/.test(status ?? '') || (hasData !== '0' && hasData !== '1') || headers === undefined) return undefined;
  return {
    status: Number(status),
    hasData: hasData === '1',
    errorCodes: codes ? codes.split(',') : [],
    headers: headers ? (JSON.parse(headers) as Record<string, string>) : undefined,
    body: body.join('\n'),
  };
}
