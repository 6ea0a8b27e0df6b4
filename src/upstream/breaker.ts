import { GraphQLError } from 'graphql';
import CircuitBreaker from 'opossum';
import type { SectionSettings } from '../config/settings.js';
import { ErrorCode } from '../errors.js';
import { circuitOpen } from './errors.js';

export type BreakerState = 'closed' | 'open' | 'halfOpen';

type Call = () => Promise<unknown>;
type Args = [Call, AbortSignal | undefined, string];

/**
 * The circuit breaker (opossum) of one upstream origin, shared by every caller of the process. When
 * it opens, and why only on the upstream's own faults seen by several callers, is docs/security.md's
 * "Circuit breaker" (the one statement of its rules); this class holds them to it: `isUpstreamFault`
 * says what counts, `FaultyCallers` how many callers must have seen it.
 */
export class UpstreamBreaker {
  readonly #breaker: CircuitBreaker<Args, unknown>;
  readonly #faulty: FaultyCallers;

  constructor(settings: SectionSettings<'breaker'>) {
    this.#faulty = new FaultyCallers(settings.breakerMinCallers, settings.breakerWindowMs);
    this.#breaker = new CircuitBreaker<Args, unknown>((call) => call(), {
      timeout: false,
      errorThresholdPercentage: settings.breakerErrorPercent,
      volumeThreshold: settings.breakerMinCalls,
      resetTimeout: settings.breakerResetMs,
      rollingCountTimeout: settings.breakerWindowMs,
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
