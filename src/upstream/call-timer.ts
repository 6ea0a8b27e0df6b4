import { deadlineExceeded, type UpstreamFailure, upstreamTimeout } from './errors.js';

/** When an operation's time is up (Date.now() time), and its length, for the error message. */
export interface Deadline {
  at: number;
  ms: number;
}

/** The upstream answer bytes an HTTP request may still read, all its calls together (UPSTREAM_MAX_BYTES). */
export interface ReadAllowance {
  readonly max: number;
  left: number;
}

/** What bounds one upstream call besides UPSTREAM_TIMEOUT_MS and UPSTREAM_MAX_BYTES: the operation it is made for. */
export interface CallLimits {
  /** Aborted when the caller went away. @default never aborted */
  signal?: AbortSignal | undefined;
  /** The operation's deadline. @default none: UPSTREAM_TIMEOUT_MS alone */
  deadline?: Deadline | undefined;
  /** What the request's answers may still hold; each body read is taken from it. @default none: UPSTREAM_MAX_BYTES per body alone */
  bytes?: ReadAllowance | undefined;
}

/**
 * The one timer of one upstream call, retries included: it fires at the shorter of the call's
 * timeout and what is left of the operation's deadline, and aborts the call's signal, which also
 * follows the caller's own signal. A controller of our own, its timer cleared by `end()`:
 * AbortSignal.timeout kept its timer pending for the whole bound after every answer, and
 * AbortSignal.any added weak references for the garbage collector to process (-10 to -13% CPU per
 * request when replaced, docs/performance.md).
 */
export class CallTimer {
  readonly #controller = new AbortController();
  readonly #timer: NodeJS.Timeout;
  readonly #limits: CallLimits;
  readonly #timeoutMs: number;
  readonly #byDeadline: boolean;
  readonly #onCallerAbort = () => this.#controller.abort();
  #timedOut = false;
  /** When the call must be over (Date.now() time): a retry that would wait past it is not made. */
  readonly expiresAt: number;

  constructor(timeoutMs: number, limits: CallLimits) {
    const left = limits.deadline ? Math.max(1, limits.deadline.at - Date.now()) : Infinity;
    this.#limits = limits;
    this.#timeoutMs = timeoutMs;
    this.#byDeadline = left < timeoutMs;
    this.expiresAt = Date.now() + Math.min(left, timeoutMs);
    this.#timer = setTimeout(
      () => {
        this.#timedOut = true;
        this.#controller.abort();
      },
      this.#byDeadline ? left : timeoutMs,
    );
    if (limits.signal?.aborted) this.#controller.abort();
    else limits.signal?.addEventListener('abort', this.#onCallerAbort, { once: true });
  }

  /** Aborted when the time is up or the caller went away. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Whether the timer, rather than the caller, aborted the call. */
  get timedOut(): boolean {
    return this.#timedOut;
  }

  /** The failure of a call that ran out of time: the deadline's when it was the shorter bound; `status` when headers had come. */
  timeoutFailure(status?: number): UpstreamFailure {
    return this.#byDeadline && this.#limits.deadline
      ? deadlineExceeded(this.#limits.deadline.ms, status)
      : upstreamTimeout(this.#timeoutMs, status);
  }

  /** Clears the timer and lets go of the caller's signal; the call is over. */
  end(): void {
    clearTimeout(this.#timer);
    this.#limits.signal?.removeEventListener('abort', this.#onCallerAbort);
  }
}
