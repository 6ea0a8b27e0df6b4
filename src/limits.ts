import { GraphQLError } from 'graphql';
import { z } from 'zod';
import { flag, wholeNumber } from './env.js';
import { ErrorCode } from './errors.js';

/**
 * Every bound the gateway puts on callers and on its use of the upstream. The README section "Security and limits" lists
 * each one with its variable and default; GatewayOptions takes any subset, the rest default here.
 */
export interface Limits {
  /** Whole GraphQL operation, all its upstream calls together (REQUEST_DEADLINE_MS). */
  requestDeadlineMs: number;
  /** Largest upstream response body; a larger one is cut off (UPSTREAM_MAX_BYTES). */
  upstreamMaxBytes: number;
  /** Upstream requests one operation may cause (MAX_UPSTREAM_CALLS). */
  maxUpstreamCalls: number;
  /** Retries of a failed GET, 0 to 2 (UPSTREAM_RETRIES). */
  upstreamRetries: number;
  /** Longest wait before a retry; a longer Retry-After is not waited for (UPSTREAM_RETRY_MAX_DELAY_MS). */
  retryMaxDelayMs: number;
  /** Share of failed calls in the breaker's window that opens it (BREAKER_ERROR_PERCENT). */
  breakerErrorPercent: number;
  /** Calls the window must hold before the breaker may open (BREAKER_MIN_CALLS). */
  breakerMinCalls: number;
  /** How long an open breaker refuses calls before it lets one probe through (BREAKER_RESET_MS). */
  breakerResetMs: number;
  /** Length of the breaker's rolling window (BREAKER_WINDOW_MS). */
  breakerWindowMs: number;
  maxDepth: number;
  maxAliases: number;
  maxTokens: number;
  maxDirectives: number;
  maxCost: number;
  /** Answer introspection queries (INTROSPECTION). */
  introspection: boolean;
  /** Keep graphql-js' "Did you mean ...?" hints in errors (FIELD_SUGGESTIONS). */
  fieldSuggestions: boolean;
}

export const DEFAULT_LIMITS: Limits = {
  requestDeadlineMs: 15_000,
  upstreamMaxBytes: 10 * 1024 * 1024,
  maxUpstreamCalls: 10,
  upstreamRetries: 2,
  retryMaxDelayMs: 2_000,
  breakerErrorPercent: 50,
  breakerMinCalls: 5,
  breakerResetMs: 10_000,
  breakerWindowMs: 10_000,
  maxDepth: 8,
  maxAliases: 15,
  maxTokens: 1_000,
  maxDirectives: 10,
  maxCost: 20_000,
  introspection: true,
  fieldSuggestions: true,
};

const whole = (min: number, max: number) => wholeNumber(min, max).optional();

/** The variables behind `Limits`, merged into the environment schema of config.ts. */
export const limitsEnvironment = {
  REQUEST_DEADLINE_MS: whole(1, 600_000),
  UPSTREAM_MAX_BYTES: whole(1024, 1024 * 1024 * 1024),
  MAX_UPSTREAM_CALLS: whole(1, 1_000),
  UPSTREAM_RETRIES: whole(0, 2),
  UPSTREAM_RETRY_MAX_DELAY_MS: whole(0, 60_000),
  BREAKER_ERROR_PERCENT: whole(1, 99),
  BREAKER_MIN_CALLS: whole(1, 10_000),
  BREAKER_RESET_MS: whole(100, 600_000),
  BREAKER_WINDOW_MS: whole(1_000, 600_000),
  MAX_DEPTH: whole(1, 1_000),
  MAX_ALIASES: whole(0, 1_000),
  MAX_TOKENS: whole(10, 1_000_000),
  MAX_DIRECTIVES: whole(0, 1_000),
  MAX_COST: whole(1, 10_000_000),
  INTROSPECTION: flag.optional(),
  FIELD_SUGGESTIONS: flag.optional(),
};

type LimitsEnvironment = { [K in keyof typeof limitsEnvironment]?: z.output<(typeof limitsEnvironment)[K]> };

/** Limits from parsed variables; introspection and field suggestions default to off in production. */
export function limitsFrom(values: LimitsEnvironment, production: boolean): Limits {
  const d = DEFAULT_LIMITS;
  return {
    requestDeadlineMs: values.REQUEST_DEADLINE_MS ?? d.requestDeadlineMs,
    upstreamMaxBytes: values.UPSTREAM_MAX_BYTES ?? d.upstreamMaxBytes,
    maxUpstreamCalls: values.MAX_UPSTREAM_CALLS ?? d.maxUpstreamCalls,
    upstreamRetries: values.UPSTREAM_RETRIES ?? d.upstreamRetries,
    retryMaxDelayMs: values.UPSTREAM_RETRY_MAX_DELAY_MS ?? d.retryMaxDelayMs,
    breakerErrorPercent: values.BREAKER_ERROR_PERCENT ?? d.breakerErrorPercent,
    breakerMinCalls: values.BREAKER_MIN_CALLS ?? d.breakerMinCalls,
    breakerResetMs: values.BREAKER_RESET_MS ?? d.breakerResetMs,
    breakerWindowMs: values.BREAKER_WINDOW_MS ?? d.breakerWindowMs,
    maxDepth: values.MAX_DEPTH ?? d.maxDepth,
    maxAliases: values.MAX_ALIASES ?? d.maxAliases,
    maxTokens: values.MAX_TOKENS ?? d.maxTokens,
    maxDirectives: values.MAX_DIRECTIVES ?? d.maxDirectives,
    maxCost: values.MAX_COST ?? d.maxCost,
    introspection: values.INTROSPECTION ?? !production,
    fieldSuggestions: values.FIELD_SUGGESTIONS ?? !production,
  };
}

export type LimitName = 'depth' | 'aliases' | 'tokens' | 'directives' | 'cost' | 'upstreamCalls';

/** The error of every operation limit: one code, `extensions.limit` says which limit and `max` its value. */
export function limitExceeded(limit: LimitName, max: number, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: ErrorCode.LIMIT_EXCEEDED, limit, max } });
}

export function upstreamCallsExceeded(max: number, needed?: number): GraphQLError {
  const what = needed === undefined ? 'needs more than' : `would need ${needed} upstream requests, more than`;
  return limitExceeded(
    'upstreamCalls',
    max,
    `This operation ${what} the ${max} upstream requests allowed (MAX_UPSTREAM_CALLS). Ask for fewer records or fewer aliased fields per request.`,
  );
}

/** The client settings that come from Limits. */
export function upstreamSettings(limits: Limits) {
  return {
    maxResponseBytes: limits.upstreamMaxBytes,
    retry: { retries: limits.upstreamRetries, maxDelayMs: limits.retryMaxDelayMs },
    breaker: {
      errorPercent: limits.breakerErrorPercent,
      minCalls: limits.breakerMinCalls,
      resetMs: limits.breakerResetMs,
      windowMs: limits.breakerWindowMs,
    },
  };
}
