import { type Dispatcher, Pool, errors as undiciErrors } from 'undici';
import type { SectionSettings } from '../config/settings.js';
import { codeOf } from '../errors.js';
import { type Answer, type Envelope, envelopeOf, readAnswer } from './answer.js';
import { type BreakerState, UpstreamBreaker } from './breaker.js';
import { type CallLimits, CallTimer, type ReadAllowance } from './call-timer.js';
import { deadlineExceeded, statusOf, type UpstreamFailure, upstreamBadResponse, upstreamUnavailable } from './errors.js';
import { type CallerIdentity, httpRequestOf, type UpstreamRequest } from './http-request.js';
import { InFlightReads } from './in-flight-reads.js';
import { retryInterceptor, retryPolicy } from './retry.js';

export type { Envelope } from './answer.js';
export type { CallLimits } from './call-timer.js';
export type { CallerIdentity, UpstreamRequest } from './http-request.js';

/** What the client reads of the settings: the Upstream and Circuit breaker sections, with the upstream's address resolved. */
export type UpstreamSettings = SectionSettings<'upstream' | 'breaker'> & { upstreamUrl: URL };

/** One call's outcome: the envelope and the HTTP status it came with. */
export interface UpstreamReply {
  status: number;
  envelope: Envelope;
}

export interface UpstreamClientOptions {
  settings: UpstreamSettings;
  /** Keep-alive sockets kept open to the upstream origin. @default 128 */
  connections?: number;
  /** Told about every finished upstream call, for logs, metrics and traces. @default none */
  onCall?: (call: UpstreamCall) => void;
  /** Wraps every call, e.g. in a trace span, and may add headers to it (`send`'s argument). @default none */
  around?: <T>(request: UpstreamRequest, send: (traceHeaders: Record<string, string>) => Promise<T>) => Promise<T>;
}

/** What observers learn about one upstream call: never the token, the full URL or ids. */
export interface UpstreamCall {
  method: UpstreamRequest['method'];
  /** The route template, e.g. `/videos/:videoId/hotspots/:id`. */
  route: string;
  /** HTTP status, or undefined when no answer arrived. */
  status: number | undefined;
  durationMs: number;
  /** The error code the caller gets, or undefined on success. */
  errorCode: string | undefined;
  requestId: string;
}

/**
 * The gateway's only way to the upstream: one keep-alive pool to UPSTREAM_URL's origin, behind a
 * circuit breaker and undici's retry interceptor. It sends the caller's own Authorization header
 * and turns every failure into an `UpstreamFailure`. Redirects are not followed (undici's default),
 * so the token never leaves UPSTREAM_URL's origin; a 3xx is answered as an error.
 *
 * Identical GETs of one caller in flight at once share one call (`InFlightReads`). A call passes
 * through, outside in: `around` (the trace span), the observation (`onCall`), the
 * deadline check and the breaker, then `#exchange`: the HTTP request (`httpRequestOf`), its one
 * timer (`CallTimer`), the retrying dispatcher, the answer (`readAnswer`) and its envelope
 * (`envelopeOf`).
 */
export class UpstreamClient {
  readonly #pool: Pool;
  readonly #dispatcher: Dispatcher;
  readonly #breaker: UpstreamBreaker;
  readonly #basePath: string;
  readonly #settings: UpstreamSettings;
  readonly #onCall: UpstreamClientOptions['onCall'];
  readonly #around: UpstreamClientOptions['around'];
  /** GETs in flight, so that identical ones of one caller share a call. */
  readonly #reads = new InFlightReads<UpstreamReply>();

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
    this.#dispatcher = this.#pool.compose(retryInterceptor(settings));
    this.#breaker = new UpstreamBreaker(settings);
    this.#basePath = settings.upstreamUrl.pathname.replace(/\/+$/, '');
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

  /** Sends one call for `caller`, within `limits`; resolves with the envelope, or rejects with an UpstreamFailure. */
  request(request: UpstreamRequest, caller: CallerIdentity, limits: CallLimits = {}): Promise<UpstreamReply> {
    if (request.method !== 'GET') return this.#traced(request, caller, limits);
    // The caller's own credential is part of the key: reads are never shared across callers.
    const key = JSON.stringify([caller.authorization, request.route, request.params, request.query]);
    const { signal, ...bounds } = limits;
    return this.#reads.join(key, (shared) => this.#traced(request, caller, { ...bounds, signal: shared }), signal);
  }

  #traced(request: UpstreamRequest, caller: CallerIdentity, limits: CallLimits): Promise<UpstreamReply> {
    const send = (traceHeaders: Record<string, string>) => this.#observed(request, caller, limits, traceHeaders);
    return this.#around ? this.#around(request, send) : send({});
  }

  /** Stops the breaker and closes the pool, letting requests in flight finish. */
  close(): Promise<void> {
    this.#breaker.close();
    return this.#pool.close();
  }

  async #observed(request: UpstreamRequest, caller: CallerIdentity, limits: CallLimits, traceHeaders: Record<string, string>) {
    if (!this.#onCall) return this.#guarded(request, caller, limits, traceHeaders);
    const started = performance.now();
    let status: number | undefined;
    let errorCode: string | undefined;
    try {
      const reply = await this.#guarded(request, caller, limits, traceHeaders);
      status = reply.status;
      return reply;
    } catch (error) {
      status = statusOf(error);
      errorCode = codeOf(error as { extensions?: Record<string, unknown> });
      throw error;
    } finally {
      this.#onCall({
        method: request.method,
        route: request.route,
        status,
        durationMs: performance.now() - started,
        errorCode,
        requestId: caller.requestId,
      });
    }
  }

  #guarded(request: UpstreamRequest, caller: CallerIdentity, limits: CallLimits, traceHeaders: Record<string, string>) {
    // A deadline used up before sending says nothing about the upstream, so the breaker never sees it.
    if (limits.deadline && limits.deadline.at <= Date.now()) return Promise.reject(deadlineExceeded(limits.deadline.ms));
    return this.#breaker.run(() => this.#exchange(request, caller, limits, traceHeaders), limits.signal, caller.authorization);
  }

  async #exchange(
    request: UpstreamRequest,
    caller: CallerIdentity,
    limits: CallLimits,
    traceHeaders: Record<string, string>,
  ): Promise<UpstreamReply> {
    const timer = new CallTimer(this.#settings.upstreamTimeoutMs, limits);
    let status: number | undefined;
    let answer: Answer;
    try {
      const response = await this.#dispatcher.request({
        ...httpRequestOf(this.#basePath, request, caller, traceHeaders),
        signal: timer.signal,
        retryOptions: { retry: retryPolicy(timer.expiresAt, timer.signal) },
      } as Dispatcher.RequestOptions);
      status = response.statusCode;
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
