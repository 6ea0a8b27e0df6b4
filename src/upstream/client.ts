import type { IncomingHttpHeaders } from 'node:http';
import { type Dispatcher, Pool, errors as undiciErrors } from 'undici';
import type { SectionSettings } from '../config/settings.js';
import { codeOf } from '../errors.js';
import { type Answer, type Envelope, envelopeOf, readAnswer } from './answer.js';
import { type BreakerState, UpstreamBreaker } from './breaker.js';
import { type CallLimits, CallTimer, type ReadAllowance } from './call-timer.js';
import { DeadlineExceeded, deadlineExceeded, statusOf, type UpstreamFailure, upstreamBadResponse, upstreamUnavailable } from './errors.js';
import { type CallerIdentity, type CallTarget, httpRequestOf, pathOf, type UpstreamRequest } from './http-request.js';
import { InFlightReads } from './in-flight-reads.js';
import { retryInterceptor, retryPolicy } from './retry.js';
import { ON_SENT, sendingInterceptor } from './sending.js';

export type { Envelope } from './answer.js';
export type { CallLimits } from './call-timer.js';
export type { CallerIdentity, UpstreamRequest } from './http-request.js';

/** What the client reads of the settings: the Upstream and Circuit breaker sections, with the upstream's address resolved. */
export type UpstreamSettings = SectionSettings<'upstream' | 'breaker'> & { upstreamUrl: URL };

export interface UpstreamClientOptions {
  settings: UpstreamSettings;
  /** Keep-alive sockets kept open to the upstream origin. @default 128 */
  connections?: number;
  /**
   * Told about every upstream call sent, once it is over, for the call's log line, metrics and span:
   * here rather than from the operation's record, because a call can outlive its operation's answer
   * (a client gone mid-stream). @default none
   */
  onCall?: (call: UpstreamCall) => void;
  /** Wraps every call, e.g. in a trace span, and may add headers to it (`send`'s argument). @default none */
  around?: <T>(request: UpstreamRequest, send: (traceHeaders: Record<string, string>) => Promise<T>) => Promise<T>;
}

/** What observers learn about one upstream call: never the token, the full URL or ids. */
export interface UpstreamCall {
  method: UpstreamRequest['method'];
  /** The route template, e.g. `/videos/:videoId/hotspots/:id`. */
  route: string;
  /** The path and query below UPSTREAM_URL, ids included: for the caller's own view of its calls (`X-Debug-Upstream`) alone, never a log line or a label. */
  path: string;
  /** The JSON body a write sent (undefined for none): the caller's input, for its own view of its calls alone, as `path`. */
  body: UpstreamRequest['body'];
  /** HTTP status, or undefined when no answer arrived. */
  status: number | undefined;
  /**
   * Its request went onto a connection to the upstream (`sendingInterceptor`): false when it failed
   * before (the circuit open, the deadline used up, no connection made, aborted while it waited for
   * a socket), and the upstream never saw it. Sent without a `status`, a write may have been done.
   */
  sent: boolean;
  /** When it was sent (performance.now()). */
  startedAt: number;
  durationMs: number;
  /** Why each retry was made, in order: the status that failed (`503`) or the error's code (`ECONNRESET`); it took one attempt more than this holds. */
  retries: readonly string[];
  /** The call was another request's, joined because it was identical and in flight (`InFlightReads`): nothing was sent for this one. */
  coalesced: boolean;
  /** The response headers of its last attempt, as received (names in lower case); empty when no answer arrived. */
  headers: Readonly<IncomingHttpHeaders>;
  /** The error code the caller gets, or undefined on success. */
  errorCode: string | undefined;
  requestId: string;
  /** The names (never the values) of the caller's headers it sent on, by their upstream names. */
  forwardedHeaders: readonly string[];
}

/** What one call learns as it goes, for its UpstreamCall. */
interface CallNotes {
  retries: string[];
  headers: IncomingHttpHeaders;
  sent: boolean;
}

/** A call that is over: what observers learn of it, and its envelope or its failure (an UpstreamFailure). */
export type Exchange = { call: UpstreamCall } & ({ envelope: Envelope; failure?: undefined } | { envelope?: undefined; failure: unknown });

/**
 * The gateway's only way to the upstream: one keep-alive pool to UPSTREAM_URL's origin, behind a
 * circuit breaker and undici's retry interceptor. It sends the caller's own Authorization header
 * and turns every failure into an `UpstreamFailure`. Redirects are not followed (undici's default),
 * so the token never leaves UPSTREAM_URL's origin; a 3xx is answered as an error.
 *
 * Identical GETs of one caller in flight at once share one call (`InFlightReads`), until the caller
 * writes. A call passes
 * through, outside in: `around` (the trace span), the observation (`onCall`), the
 * deadline check and the breaker, then `#exchange`: the HTTP request (`httpRequestOf`), its one
 * timer (`CallTimer`), the retrying dispatcher, the answer (`readAnswer`) and its envelope
 * (`envelopeOf`).
 */
export class UpstreamClient {
  readonly #pool: Pool;
  readonly #dispatcher: Dispatcher;
  readonly #breaker: UpstreamBreaker;
  readonly #target: CallTarget;
  readonly #settings: UpstreamSettings;
  readonly #onCall: UpstreamClientOptions['onCall'];
  readonly #around: UpstreamClientOptions['around'];
  /** GETs in flight, so that identical ones of one caller share a call. */
  readonly #reads = new InFlightReads<Exchange>();

  constructor({ settings, connections = 128, onCall, around }: UpstreamClientOptions) {
    const { upstreamTimeoutMs, upstreamMaxBytes } = settings;
    this.#pool = new Pool(settings.upstreamUrl.origin, {
      connections,
      keepAliveTimeout: 30_000,
      connectTimeout: upstreamTimeoutMs,
      headersTimeout: upstreamTimeoutMs,
      bodyTimeout: upstreamTimeoutMs,
      maxResponseSize: upstreamMaxBytes,
    });
    // Innermost first: the sending interceptor sees each attempt the retry interceptor makes.
    this.#dispatcher = this.#pool.compose(sendingInterceptor, retryInterceptor(settings));
    this.#breaker = new UpstreamBreaker(settings);
    this.#target = { basePath: settings.upstreamUrl.pathname.replace(/\/+$/, ''), userAgent: settings.upstreamUserAgent };
    this.#settings = settings;
    this.#onCall = onCall;
    this.#around = around;
  }

  /** Socket counts of the keep-alive pool (connected, free, pending, running, size). */
  get stats() {
    return this.#pool.stats;
  }

  /** State of the circuit breaker: closed (normal), open (failing fast) or halfOpen (probing). */
  get breakerState(): BreakerState {
    return this.#breaker.state;
  }

  /**
   * Sends one call for `caller`, within `limits`; resolves, never rejects, with the call once it is
   * over and its envelope or its failure (an UpstreamFailure). `onCall` is told of every call sent;
   * a read that joined one in flight is the caller's as `coalesced`, and never told to `onCall`.
   */
  async request(request: UpstreamRequest, caller: CallerIdentity, limits: CallLimits = {}): Promise<Exchange> {
    // Whether this request's read joined a call another request had made: `join` calls `start` only for a call of its own.
    let joined = false;
    let exchange: Promise<Exchange>;
    if (request.method !== 'GET') {
      // A read sent after this write must not be given an answer read before it.
      this.#reads.forget(caller.authorization);
      exchange = this.#traced(request, caller, limits);
    } else {
      // Per caller's own credential: reads are never shared across callers, nor across the headers they send on.
      const key = JSON.stringify([request.route, request.params, request.query, caller.forwarded]);
      const { signal, ...bounds } = limits;
      joined = true;
      exchange = this.#reads.join(
        caller.authorization,
        key,
        (shared) => {
          joined = false;
          return this.#traced(request, caller, { ...bounds, signal: shared });
        },
        signal,
      );
    }
    const outcome = await exchange;
    if (!joined) return outcome;
    // The call it joined gave up at the deadline of the request that made it, not at this one's: it calls on its own.
    if (outcome.failure instanceof DeadlineExceeded && limits.deadline && limits.deadline.at > Date.now())
      return this.#traced(request, caller, limits);
    return { ...outcome, call: { ...outcome.call, coalesced: true } };
  }

  #traced(request: UpstreamRequest, caller: CallerIdentity, limits: CallLimits): Promise<Exchange> {
    const send = (traceHeaders: Record<string, string>) => this.#observed(request, caller, limits, traceHeaders);
    return this.#around ? this.#around(request, send) : send({});
  }

  /** Stops the breaker and closes the pool, letting requests in flight finish. */
  close(): Promise<void> {
    this.#breaker.close();
    return this.#pool.close();
  }

  /** Never rejects: a failure is part of the Exchange, so that every request sharing the call learns the call with it. */
  async #observed(
    request: UpstreamRequest,
    caller: CallerIdentity,
    limits: CallLimits,
    traceHeaders: Record<string, string>,
  ): Promise<Exchange> {
    const startedAt = performance.now();
    const notes: CallNotes = { retries: [], headers: {}, sent: false };
    let outcome: { envelope: Envelope } | { failure: unknown };
    let status: number | undefined;
    try {
      const answered = await this.#guarded(request, caller, limits, traceHeaders, notes);
      status = answered.status;
      outcome = { envelope: answered.envelope };
    } catch (failure) {
      status = statusOf(failure);
      outcome = { failure };
    }
    const call: UpstreamCall = {
      method: request.method,
      route: request.route,
      path: pathOf(request),
      body: request.body,
      status,
      sent: notes.sent,
      startedAt,
      durationMs: performance.now() - startedAt,
      retries: notes.retries,
      coalesced: false,
      headers: notes.headers,
      errorCode: 'failure' in outcome ? codeOf(outcome.failure as { extensions?: Record<string, unknown> }) : undefined,
      requestId: caller.requestId,
      forwardedHeaders: caller.forwarded ? Object.keys(caller.forwarded) : [],
    };
    this.#onCall?.(call);
    return { call, ...outcome };
  }

  #guarded(request: UpstreamRequest, caller: CallerIdentity, limits: CallLimits, traceHeaders: Record<string, string>, notes: CallNotes) {
    // A deadline used up before sending says nothing about the upstream, so the breaker never sees it.
    if (limits.deadline && limits.deadline.at <= Date.now()) return Promise.reject(deadlineExceeded(limits.deadline.ms));
    return this.#breaker.run(() => this.#exchange(request, caller, limits, traceHeaders, notes), limits.signal, caller.authorization);
  }

  async #exchange(
    request: UpstreamRequest,
    caller: CallerIdentity,
    limits: CallLimits,
    traceHeaders: Record<string, string>,
    notes: CallNotes,
  ): Promise<{ status: number; envelope: Envelope }> {
    const timer = new CallTimer(this.#settings.upstreamTimeoutMs, limits);
    const onRetry = (reason: string) => notes.retries.push(reason);
    let status: number | undefined;
    let answer: Answer;
    try {
      const response = await this.#dispatcher.request({
        ...httpRequestOf(this.#target, request, caller, traceHeaders),
        signal: timer.signal,
        retryOptions: { retry: retryPolicy(timer.expiresAt, timer.signal, { onRetry }) },
        [ON_SENT]: () => {
          notes.sent = true;
        },
      } as Dispatcher.RequestOptions);
      status = response.statusCode;
      notes.headers = response.headers;
      answer = await readAnswer(response);
    } catch (error) {
      throw this.#transportFailure(error, timer, status);
    } finally {
      timer.end();
    }
    if (limits.bytes) takeBytes(limits.bytes, answer);
    return { status: answer.status, envelope: envelopeOf(answer, caller.authorization.replace(/^Bearer\s+/i, '')) };
  }

  /** A call that got no whole answer; `status` when the headers had come. */
  #transportFailure(error: unknown, timer: CallTimer, status: number | undefined): UpstreamFailure {
    if (error instanceof undiciErrors.ResponseExceededMaxSizeError) {
      return upstreamBadResponse(`the body is larger than ${this.#settings.upstreamMaxBytes} bytes`, status);
    }
    if (
      timer.timedOut ||
      error instanceof undiciErrors.ConnectTimeoutError ||
      error instanceof undiciErrors.HeadersTimeoutError ||
      error instanceof undiciErrors.BodyTimeoutError
    ) {
      return timer.timeoutFailure(status);
    }
    return upstreamUnavailable(status);
  }
}

/**
 * Takes a body from what the request may still read, before it is parsed; past it the answer is
 * UPSTREAM_BAD_RESPONSE. UPSTREAM_MAX_BYTES bounds each body as it streams in (undici); this bounds
 * the bodies of one request together, so a request holds at most that much of what the upstream
 * sent, plus the one body that passed it.
 */
function takeBytes(allowance: ReadAllowance, answer: Answer): void {
  const bytes = Buffer.byteLength(answer.text);
  if (bytes > allowance.left) {
    throw upstreamBadResponse(`the answers to this request are larger than ${allowance.max} bytes together`, answer.status);
  }
  allowance.left -= bytes;
}
