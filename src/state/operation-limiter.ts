import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { StoreFailures } from './store-failures.js';

/** One caller's allowance after it took some operations: what the answer's RateLimit headers say. */
export interface RateDecision {
  allowed: boolean;
  /** RATE_LIMIT_OPERATIONS. */
  limit: number;
  /** Operations left in the window, 0 when refused. */
  remaining: number;
  /** Whole seconds until the window resets: the Retry-After of a refusal. */
  resetSeconds: number;
}

/** Counts operations per caller in fixed windows. */
export interface OperationLimiter {
  /** Takes `count` operations (a batch's every one) from `caller`'s allowance. */
  take(caller: string, count: number): Promise<RateDecision>;
}

export interface LimiterSettings {
  rateLimitOperations: number;
  rateLimitWindowMs: number;
}

/**
 * The counters, with rate-limiter-flexible: in this process, or in Redis, where one atomic script
 * (INCRBY and its expiry together) counts for every replica, so two gateways sharing one Redis
 * enforce one limit, not two. While Redis fails (or is not connected: nothing waits for it), each
 * replica counts in its own memory instead, and the failure is reported.
 */
export function operationLimiter(
  settings: LimiterSettings,
  shared?: { redis: Redis; prefix: string; failures: StoreFailures },
): OperationLimiter {
  const options = { points: settings.rateLimitOperations, duration: settings.rateLimitWindowMs / 1000 };
  const memory = new RateLimiterMemory(options);
  const redis =
    shared &&
    new RateLimiterRedis({ ...options, storeClient: shared.redis, keyPrefix: `${shared.prefix}rate`, rejectIfRedisNotReady: true });
  const decide = async (limiter: RateLimiterMemory | RateLimiterRedis, caller: string, count: number): Promise<RateDecision> => {
    try {
      return decision(await limiter.consume(caller, count), true, options.points);
    } catch (refusal) {
      if (refusal instanceof RateLimiterRes) return decision(refusal, false, options.points);
      throw refusal;
    }
  };
  return {
    async take(caller, count) {
      if (!redis) return decide(memory, caller, count);
      try {
        return await decide(redis, caller, count);
      } catch (error) {
        shared.failures.record('rateLimits', error);
        return decide(memory, caller, count);
      }
    },
  };
}

function decision(result: RateLimiterRes, allowed: boolean, limit: number): RateDecision {
  return {
    allowed,
    limit,
    remaining: allowed ? result.remainingPoints : 0,
    resetSeconds: Math.max(1, Math.ceil(result.msBeforeNext / 1000)),
  };
}
