import { GraphQLError } from 'graphql';
import CircuitBreaker from 'opossum';
import { ErrorCode } from '../errors.js';
import { circuitOpen } from './errors.js';

export interface BreakerSettings {
  /** Opens when more than this share (percent) of the calls in the window failed... */
  errorPercent: number;
  /** ...and the window holds at least this many calls... */
  minCalls: number;
  /** ...and the failures in it came from at least this many distinct callers. */
  minCallers: number;
  /** Open for this long, then one probe call is let through (half-open). */
  resetMs: number;
  /** Length of the rolling window the shares are counted over. */
  windowMs: number;
}

export type BreakerState = 'closed' | 'open' | 'halfOpen';

type Call = () => Promise<unknown>;
type Args = [Call, AbortSignal | undefined, string];

/**
 * A circuit breaker (opossum) for one upstream origin, shared by every caller, so it opens only on
 * evidence that the upstream itself fails:
 *
 * - only the upstream's own faults count: no answer in time, no connection, a 5xx. A 4xx is the
 *   caller's business, and a call the caller cancelled says nothing about the upstream;
 * - a fault counts only once faults in the window came from `minCallers` distinct callers
 *   (bearer tokens): one caller whose input makes the upstream answer 500 cannot open the circuit
 *   for everyone else, however many calls it makes. Until then its faults count as answers.
 *
 * While open, calls fail at once with UPSTREAM_UNAVAILABLE and nothing is sent. The probe let
 * through when half-open counts whoever sent it.
 */
export class UpstreamBreaker {
  readonly #breaker: CircuitBreaker<Args, unknown>;
  readonly #faulty: FaultyCallers;

  constructor({ errorPercent, minCalls, minCallers, resetMs, windowMs }: BreakerSettings) {
    this.#faulty = new FaultyCallers(minCallers, windowMs);
    this.#breaker = new CircuitBreaker<Args, unknown>((call) => call(), {
      timeout: false,
      errorThresholdPercentage: errorPercent,
      volumeThreshold: minCalls,
      resetTimeout: resetMs,
      rollingCountTimeout: windowMs,
      rollingCountBuckets: 10,
      // True means "not a failure". opossum passes fire()'s arguments after the error; its typings only declare the error.
      errorFilter: ((error: unknown, _call: Call, signal: AbortSignal | undefined, caller: string) => {
        if (signal?.aborted === true || !isUpstreamFault(error)) return true;
        if (this.#breaker.halfOpen) return false;
        return !this.#faulty.enoughAfter(caller);
      }) as (error: unknown) => boolean,
    });
  }

  get state(): BreakerState {
    if (this.#breaker.opened) return 'open';
    return this.#breaker.halfOpen ? 'halfOpen' : 'closed';
  }

  /** Runs `call` for `caller`, a key of who is calling (their Authorization header); it is never shown. */
  async run<T>(call: () => Promise<T>, signal: AbortSignal | undefined, caller: string): Promise<T> {
    try {
      return (await this.#breaker.fire(call, signal, caller)) as T;
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

/**
 * The callers whose calls failed in the last `windowMs`, newest last, at most `needed` of them:
 * remembering more would not change the answer, and the memory stays bounded whoever calls.
 */
class FaultyCallers {
  readonly #lastFault = new Map<string, number>();

  constructor(
    readonly needed: number,
    readonly windowMs: number,
  ) {}

  /** Records a fault of `caller`; true when the window now holds faults of `needed` distinct callers. */
  enoughAfter(caller: string, now = performance.now()): boolean {
    this.#lastFault.delete(caller);
    this.#lastFault.set(caller, now);
    for (const [key, at] of this.#lastFault) {
      if (now - at <= this.windowMs && this.#lastFault.size <= this.needed) break;
      this.#lastFault.delete(key);
    }
    return this.#lastFault.size >= this.needed;
  }
}
