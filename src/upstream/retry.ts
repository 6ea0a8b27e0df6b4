import { type Dispatcher, interceptors, type RetryHandler } from 'undici';
import type { SectionSettings } from '../config/settings.js';
import { retryAfterSeconds } from './errors.js';

/** Statuses worth a second try: the upstream or a proxy in front of it was briefly unable to answer. */
const RETRY_STATUSES = [502, 503, 504];

/** Failures to reach the upstream at all. Timeouts are not here: a retry would only outlive the deadline. */
const RETRY_ERROR_CODES = ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ENOTFOUND', 'ENETUNREACH', 'EHOSTUNREACH', 'UND_ERR_SOCKET'];

const FIRST_DELAY_MS = 100;

/**
 * undici's retry interceptor, for idempotent reads only. The upstream's last answer is passed on
 * (`throwOnError: false`) so its status and error objects reach the caller. The per-request policy
 * comes from `retryPolicy`, which knows the call's deadline and cancellation.
 */
export function retryInterceptor(settings: SectionSettings<'upstream'>): Dispatcher.DispatcherComposeInterceptor {
  return interceptors.retry({
    methods: ['GET'],
    statusCodes: RETRY_STATUSES,
    errorCodes: RETRY_ERROR_CODES,
    maxRetries: settings.upstreamRetries,
    minTimeout: FIRST_DELAY_MS,
    // No wait is longer: a Retry-After above it is not waited for, the failure is answered instead.
    maxTimeout: settings.upstreamRetryMaxDelayMs,
    throwOnError: false,
  });
}

export interface RetryPolicyOptions {
  /** Told why each retry is made, as it is made: the status that failed (`503`) or the error's code (`ECONNRESET`). @default none */
  onRetry?: ((reason: string) => void) | undefined;
  /** The jitter's source of numbers in [0, 1). @default Math.random */
  random?: () => number;
}

/**
 * undici's own backoff has no jitter, so many callers failing together would retry together. This
 * one waits a random time up to the exponential step (full jitter), honours Retry-After when it
 * fits under `maxDelayMs`, and gives up early when the wait would outlive `deadline` or the
 * caller went away.
 */
export function retryPolicy(
  deadline: number,
  signal: AbortSignal,
  { onRetry, random = Math.random }: RetryPolicyOptions = {},
): RetryHandler.RetryCallback {
  return (error, { state, opts }, next) => {
    const { statusCode, code, headers } = error as Error & {
      statusCode?: number;
      code?: string;
      headers?: Record<string, string | string[]>;
    };
    const options = opts.retryOptions ?? {};
    const retryable =
      (options.methods ?? []).includes(opts.method as never) &&
      (code === undefined || code === 'UND_ERR_REQ_RETRY' || (options.errorCodes ?? []).includes(code)) &&
      (statusCode === undefined || (options.statusCodes ?? []).includes(statusCode)) &&
      state.counter <= (options.maxRetries ?? 0);
    const delay = retryable ? delayMs(state.counter, headers, options.maxTimeout ?? 0, random) : undefined;
    if (delay === undefined || signal.aborted || Date.now() + delay >= deadline) return next(error);

    const onAbort = () => {
      clearTimeout(timer);
      next(error);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      onRetry?.(statusCode === undefined ? (code ?? 'unknown') : String(statusCode));
      next(null);
    }, delay);
    signal.addEventListener('abort', onAbort, { once: true });
  };
}

function delayMs(
  attempt: number,
  headers: Record<string, string | string[]> | undefined,
  maxDelayMs: number,
  random: () => number,
): number | undefined {
  const header = headers?.['retry-after'];
  const retryAfter = retryAfterSeconds(Array.isArray(header) ? header[0] : header);
  if (retryAfter !== undefined) return retryAfter * 1000 <= maxDelayMs ? retryAfter * 1000 : undefined;
  return Math.round(random() * Math.min(FIRST_DELAY_MS * 2 ** (attempt - 1), maxDelayMs));
}
