import { LRUCache } from 'lru-cache';
import type { RedisLink } from './redis-link.js';

/** One caller's allowance after a take: what the answer's RateLimit headers say, in RATE_LIMIT_UNIT. */
export interface RateDecision {
  allowed: boolean;
  /** RATE_LIMIT. */
  limit: number;
  /** What is left in the window: after the take, or as it was when the take did not fit and took nothing. */
  remaining: number;
  /** Whole seconds until the window resets: the Retry-After of a refusal. */
  resetSeconds: number;
}

/** Counts what callers spend (operations, or REST calls) in fixed windows. */
export interface OperationLimiter {
  /**
   * Takes `count` from `caller`'s allowance if it fits what is left, or takes nothing and refuses;
   * at once when the count is in this process. A take of 0 always fits.
   */
  take(caller: string, count: number): RateDecision | Promise<RateDecision>;
  /**
   * Gives `count` back to `caller`'s window, if it is still the one it was taken from, never below
   * none taken; a negative count takes what was spent beyond a take, whether it fits or not.
   */
  giveBack(caller: string, count: number): void;
}

export interface LimiterSettings {
  rateLimit: number;
  rateLimitWindowMs: number;
}

/**
 * The heap the windows of one process may hold, as `windowBytes` counts it: past it, the least
 * recently seen caller's window is forgotten, which only lets that caller start a new one. About
 * 100,000 callers; a caller is a hash or an IP address, so no caller can make its own entry larger.
 */
const MAX_WINDOW_BYTES = 16 * 2 ** 20;

/** The heap one window holds: its key, two bytes a character at most, and the entry's own share. */
const windowBytes = (_window: unknown, caller: string) => 2 * caller.length + 96;

/**
 * A take from a caller's window in Redis, one key, its expiry set by the window's first take: the
 * count grows only when the take fits the limit (ARGV[4]); whether it did, the count and the
 * milliseconds left.
 */
const COUNT_IN_WINDOW = `
local points = tonumber(ARGV[2])
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
local left = redis.call('PTTL', KEYS[1])
if count + points > tonumber(ARGV[4]) then
  if left < 0 then left = tonumber(ARGV[3]) end
  return {0, count, left}
end
count = redis.call('INCRBY', KEYS[1], points)
if left < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) left = tonumber(ARGV[3]) end
return {1, count, left}
`;

/** A give-back: within the window the operations were taken from (the key still there), never below 0. */
const GIVE_BACK = `
local count = tonumber(redis.call('GET', KEYS[1]))
if not count then return 0 end
return redis.call('DECRBY', KEYS[1], math.min(count, tonumber(ARGV[2])))
`;

/**
 * The counters: in this process, or in Redis, where one atomic script counts for every replica, so
 * two gateways sharing one Redis enforce one limit, not two. While Redis fails (or is not connected:
 * nothing waits for it), each replica counts in its own memory instead, and the failure is reported.
 * The script is the gateway's own rather than rate-limiter-flexible's, whose scripts take no more
 * arguments than theirs: like every store command it carries its deadline (src/state/redis-link.ts),
 * so that a count Redis gets late is never taken.
 */
export function operationLimiter(settings: LimiterSettings, link?: RedisLink): OperationLimiter {
  const memory = new InProcessWindows(settings);
  if (!link) return memory;
  const limit = settings.rateLimit;
  const count = link.script('vmsRateCount', 1, COUNT_IN_WINDOW);
  const giveBack = link.script('vmsRateGiveBack', 1, GIVE_BACK);
  return {
    take: (caller, points) =>
      link.run(
        'rateLimits',
        async () => {
          const [fits, taken, leftMs] = (await count([link.key('rate', caller)], [points, settings.rateLimitWindowMs, limit])) as [
            number,
            number,
            number,
          ];
          return { allowed: fits === 1, limit, remaining: Math.max(0, limit - taken), resetSeconds: Math.max(1, Math.ceil(leftMs / 1000)) };
        },
        () => memory.take(caller, points),
      ),
    // Not awaited: nothing waits for a give-back, and a failed one only leaves the count as it was.
    giveBack: (caller, points) =>
      void link.run(
        'rateLimits',
        () => giveBack([link.key('rate', caller)], [points]),
        () => memory.giveBack(caller, points),
      ),
  };
}

/**
 * Fixed windows in this process's memory, counted without a promise: on every request, a
 * rate-limiter-flexible memory limiter's promises measured several microseconds more than this map.
 */
class InProcessWindows implements OperationLimiter {
  readonly #windows = new LRUCache<string, { taken: number; resetsAt: number }>({
    maxSize: MAX_WINDOW_BYTES,
    sizeCalculation: windowBytes,
  });
  readonly #limit: number;
  readonly #windowMs: number;

  constructor({ rateLimit, rateLimitWindowMs }: LimiterSettings) {
    this.#limit = rateLimit;
    this.#windowMs = rateLimitWindowMs;
  }

  take(caller: string, count: number): RateDecision {
    const now = Date.now();
    let window = this.#windows.get(caller);
    if (!window || window.resetsAt <= now) {
      window = { taken: 0, resetsAt: now + this.#windowMs };
      this.#windows.set(caller, window);
    }
    const allowed = window.taken + count <= this.#limit;
    if (allowed) window.taken += count;
    return {
      allowed,
      limit: this.#limit,
      remaining: Math.max(0, this.#limit - window.taken),
      resetSeconds: Math.max(1, Math.ceil((window.resetsAt - now) / 1000)),
    };
  }

  giveBack(caller: string, count: number): void {
    const window = this.#windows.get(caller);
    if (window && window.resetsAt > Date.now()) window.taken = Math.max(0, window.taken - count);
  }
}
