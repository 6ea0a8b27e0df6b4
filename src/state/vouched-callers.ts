import { LRUCache } from 'lru-cache';

/** Callers one process remembers as vouched for: about 64 bytes each (a 43-character hash and the entry). */
const MAX_CALLERS = 100_000;

/** How long the upstream's acceptance of a credential stands. */
const VOUCHED_FOR_MS = 60 * 60 * 1000;

/**
 * The callers (`callerKey`s) whose credential the upstream accepted within the last hour, in this
 * process: what the rate limit needs to tell a caller from a stranger rotating tokens, and which no
 * replica needs to share (a caller's first operation on another replica is counted as a stranger's
 * too). Bounded in entries, least recently vouched forgotten first.
 */
export class VouchedCallers {
  readonly #callers = new LRUCache<string, true>({ max: MAX_CALLERS, ttl: VOUCHED_FOR_MS });

  has(caller: string): boolean {
    return this.#callers.has(caller);
  }

  add(caller: string): void {
    this.#callers.set(caller, true);
  }
}
