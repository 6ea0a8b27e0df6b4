import { GraphQLError } from 'graphql';
import CircuitBreaker from 'opossum';
import { ErrorCode } from '../errors.js';
import { circuitOpen } from './errors.js';

export interface BreakerSettings {
  /** Opens when more than this share (percent) of the calls in the window failed... */
  errorPercent: number;
  /** ...and the window holds at least this many calls. */
  minCalls: number;
  /** Open for this long, then one probe call is let through (half-open). */
  resetMs: number;
  /** Length of the rolling window the shares are counted over. */
  windowMs: number;
}

export type BreakerState = 'closed' | 'open' | 'halfOpen';

type Call = () => Promise<unknown>;

/**
 * A circuit breaker (opossum) for one upstream origin. Only the upstream's own faults count as
 * failures: no answer in time, no connection, a 5xx. A 4xx is the caller's business, and a call
 * the caller cancelled says nothing about the upstream. While open, calls fail at once with
 * UPSTREAM_UNAVAILABLE and nothing is sent.
 */
export class UpstreamBreaker {
  readonly #breaker: CircuitBreaker<[Call, AbortSignal | undefined], unknown>;

  constructor({ errorPercent, minCalls, resetMs, windowMs }: BreakerSettings) {
    this.#breaker = new CircuitBreaker<[Call, AbortSignal | undefined], unknown>((call) => call(), {
      timeout: false,
      errorThresholdPercentage: errorPercent,
      volumeThreshold: minCalls,
      resetTimeout: resetMs,
      rollingCountTimeout: windowMs,
      rollingCountBuckets: 10,
      // opossum passes fire()'s arguments after the error; its typings only declare the error.
      errorFilter: ((error: unknown, _call: Call, signal: AbortSignal | undefined) =>
        signal?.aborted === true || !isUpstreamFault(error)) as (error: unknown) => boolean,
    });
  }

  get state(): BreakerState {
    if (this.#breaker.opened) return 'open';
    return this.#breaker.halfOpen ? 'halfOpen' : 'closed';
  }

  async run<T>(call: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    try {
      return (await this.#breaker.fire(call, signal)) as T;
    } catch (error) {
      if ((error as { code?: unknown }).code === 'EOPENBREAKER') throw circuitOpen();
      throw error;
    }
  }

  /** Stops the breaker's window timer. */
  close(): void {
    this.#breaker.shutdown();
  }
}

function isUpstreamFault(error: unknown): boolean {
  if (!(error instanceof GraphQLError)) return false;
  const { code, upstream } = error.extensions as { code?: unknown; upstream?: { status?: unknown } };
  if (code === ErrorCode.UPSTREAM_TIMEOUT || code === ErrorCode.UPSTREAM_UNAVAILABLE) return true;
  return code === ErrorCode.UPSTREAM_ERROR && typeof upstream?.status === 'number' && upstream.status >= 500;
}
