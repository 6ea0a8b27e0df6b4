import type { RetryHandler } from 'undici';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { retryPolicy } from '../../src/upstream/retry.js';

/** The backoff of undici's retry interceptor as the gateway configures it, on a fake clock. */
const retryOptions = {
  methods: ['GET'],
  statusCodes: [502, 503, 504],
  errorCodes: ['ECONNRESET'],
  maxRetries: 2,
  maxTimeout: 2_000,
} as RetryHandler.RetryOptions;

function failure(fields: { statusCode?: number; code?: string; headers?: Record<string, string> }): Error {
  return Object.assign(new Error('failed'), fields);
}

interface DecideOptions {
  attempt?: number;
  method?: string;
  deadline?: number;
  signal?: AbortSignal;
  random?: () => number;
}

/** Runs the policy once; resolves with the delay in fake ms before it said "retry", or with the error it gave up with. */
async function decide(
  error: Error,
  {
    attempt = 1,
    method = 'GET',
    deadline = Date.now() + 60_000,
    signal = new AbortController().signal,
    random = () => 0.5,
  }: DecideOptions = {},
): Promise<{ retryAfterMs: number } | { gaveUp: Error }> {
  const started = Date.now();
  let outcome: { retryAfterMs: number } | { gaveUp: Error } | undefined;
  retryPolicy(deadline, signal, { random })(error, { state: { counter: attempt }, opts: { method, path: '/', retryOptions } }, (result) => {
    outcome = result ? { gaveUp: result } : { retryAfterMs: Date.now() - started };
  });
  await vi.runAllTimersAsync();
  return outcome!;
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('retryPolicy', () => {
  it('waits a random share of 100 ms, then of 200 ms (full jitter)', async () => {
    expect(await decide(failure({ statusCode: 503 }), { attempt: 1, random: () => 0.5 })).toEqual({ retryAfterMs: 50 });
    expect(await decide(failure({ statusCode: 503 }), { attempt: 2, random: () => 0.5 })).toEqual({ retryAfterMs: 100 });
    expect(await decide(failure({ code: 'ECONNRESET' }), { attempt: 2, random: () => 0.999 })).toEqual({ retryAfterMs: 200 });
    expect(await decide(failure({ code: 'ECONNRESET' }), { attempt: 1, random: () => 0 })).toEqual({ retryAfterMs: 0 });
  });

  it('gives up after maxRetries, for other methods, statuses and error codes', async () => {
    for (const [error, options] of [
      [failure({ statusCode: 503 }), { attempt: 3 }],
      [failure({ statusCode: 503 }), { method: 'POST' }],
      [failure({ statusCode: 503 }), { method: 'PATCH' }],
      [failure({ statusCode: 500 }), {}],
      [failure({ statusCode: 429 }), {}],
      [failure({ code: 'UND_ERR_HEADERS_TIMEOUT' }), {}],
    ] as const) {
      expect(await decide(error, options)).toEqual({ gaveUp: error });
    }
  });

  it('waits exactly Retry-After when it fits under the cap, and does not wait for a longer one', async () => {
    expect(await decide(failure({ statusCode: 503, headers: { 'retry-after': '2' } }))).toEqual({ retryAfterMs: 2_000 });
    const tooLong = failure({ statusCode: 503, headers: { 'retry-after': '3' } });
    expect(await decide(tooLong)).toEqual({ gaveUp: tooLong });
  });

  it("does not start a wait that would outlive the call's deadline", async () => {
    const error = failure({ statusCode: 503, headers: { 'retry-after': '1' } });
    expect(await decide(error, { deadline: Date.now() + 999 })).toEqual({ gaveUp: error });
  });

  it('stops waiting when the caller goes away', async () => {
    const controller = new AbortController();
    const error = failure({ statusCode: 503, headers: { 'retry-after': '2' } });
    let outcome: Error | null | undefined;
    retryPolicy(Date.now() + 60_000, controller.signal)(
      error,
      { state: { counter: 1 }, opts: { method: 'GET', path: '/', retryOptions } },
      (result) => {
        outcome = result;
      },
    );
    await vi.advanceTimersByTimeAsync(500);
    expect(outcome).toBeUndefined();
    controller.abort();
    expect(outcome).toBe(error);
    await vi.runAllTimersAsync();
    expect(outcome).toBe(error);
  });
});
