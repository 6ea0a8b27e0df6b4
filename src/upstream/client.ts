import { type Dispatcher, Pool, errors as undiciErrors } from 'undici';
import type { Settings } from '../config/settings.js';
import { codeOf } from '../errors.js';
import { type BreakerState, UpstreamBreaker } from './breaker.js';
import { deadlineExceeded, upstreamBadResponse, upstreamFailure, upstreamTimeout, upstreamUnavailable } from './errors.js';
import { retryInterceptor, retryPolicy } from './retry.js';
import { fillRoute } from './route.js';

type HttpMethod = 'GET' | 'POST' | 'PATCH';

export interface UpstreamRequest {
  method: HttpMethod;
  /** Route template relative to UPSTREAM_URL, e.g. `/categories/:id`. */
  route: string;
  params?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
  body?: Record<string, unknown>;
}

/** Who the request is made for: everything here comes from the caller's own HTTP request. */
export interface CallerHeaders {
  authorization: string;
  requestId: string;
  signal?: AbortSignal | undefined;
  /** The operation's deadline (Date.now() time) and its length, for the error message. @default none */
  deadline?: { at: number; ms: number } | undefined;
  /** Headers set by the `around` option, e.g. W3C traceparent; they cannot replace the ones above. @default none */
  traceHeaders?: Record<string, string> | undefined;
}

export interface Envelope {
  result: unknown;
  links: unknown;
}

/** The settings the client reads (docs/configuration.md, section Upstream). */
type UpstreamSettings = Pick<
  Settings,
  | 'upstreamTimeoutMs'
  | 'upstreamMaxBytes'
  | 'upstreamRetries'
  | 'upstreamRetryMaxDelayMs'
  | 'breakerErrorPercent'
  | 'breakerMinCalls'
  | 'breakerMinCallers'
  | 'breakerResetMs'
  | 'breakerWindowMs'
>;

export interface UpstreamClientOptions {
  /** Base URL ending in /v2. */
  baseUrl: URL;
  settings: UpstreamSettings;
  /** Keep-alive sockets kept open to the upstream origin. @default 128 */
  connections?: number;
  /** Told about every finished upstream call, for logs, metrics and traces. @default none */
  onCall?: (call: UpstreamCall) => void;
  /** Wraps every call, e.g. in a trace span, and may add headers to it (`send`'s argument). @default none */
  around?: (request: UpstreamRequest, send: (traceHeaders: Record<string, string>) => Promise<Envelope>) => Promise<Envelope>;
}

/** What observers learn about one upstream call: never the token, the full URL or ids. */
export interface UpstreamCall {
  method: HttpMethod;
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
 */
export class UpstreamClient {
  readonly #pool: Pool;
  readonly #dispatcher: Dispatcher;
  readonly #breaker: UpstreamBreaker;
  readonly #basePath: string;
  readonly #timeoutMs: number;
  readonly #maxResponseBytes: number;
  readonly #onCall: ((call: UpstreamCall) => void) | undefined;
  readonly #around: UpstreamClientOptions['around'];

  constructor({ baseUrl, settings, connections = 128, onCall, around }: UpstreamClientOptions) {
    const { upstreamTimeoutMs: timeoutMs, upstreamMaxBytes: maxResponseBytes } = settings;
    this.#pool = new Pool(baseUrl.origin, {
      connections,
      keepAliveTimeout: 30_000,
      connectTimeout: timeoutMs,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      maxResponseSize: maxResponseBytes,
    });
    this.#dispatcher = this.#pool.compose(
      retryInterceptor({ retries: settings.upstreamRetries, maxDelayMs: settings.upstreamRetryMaxDelayMs }),
    );
    this.#breaker = new UpstreamBreaker({
      errorPercent: settings.breakerErrorPercent,
      minCalls: settings.breakerMinCalls,
      minCallers: settings.breakerMinCallers,
      resetMs: settings.breakerResetMs,
      windowMs: settings.breakerWindowMs,
    });
    this.#basePath = baseUrl.pathname.replace(/\/+$/, '');
    this.#timeoutMs = timeoutMs;
    this.#maxResponseBytes = maxResponseBytes;
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

  request(request: UpstreamRequest, caller: CallerHeaders): Promise<Envelope> {
    if (!this.#around) return this.#observed(request, caller);
    return this.#around(request, (traceHeaders) => this.#observed(request, { ...caller, traceHeaders }));
  }

  async #observed(request: UpstreamRequest, caller: CallerHeaders): Promise<Envelope> {
    if (!this.#onCall) return this.#guarded(request, caller);
    const started = performance.now();
    let status: number | undefined;
    let errorCode: string | undefined;
    try {
      return await this.#guarded(request, caller, (s) => (status = s));
    } catch (error) {
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

  async #guarded(request: UpstreamRequest, caller: CallerHeaders, onStatus?: (status: number) => void): Promise<Envelope> {
    // A deadline used up before sending says nothing about the upstream, so the breaker never sees it.
    if (caller.deadline && caller.deadline.at <= Date.now()) throw deadlineExceeded(caller.deadline.ms);
    return this.#breaker.run(() => this.#request(request, caller, onStatus), caller.signal, caller.authorization);
  }

  async #request(request: UpstreamRequest, caller: CallerHeaders, onStatus?: (status: number) => void): Promise<Envelope> {
    const path = this.#basePath + fillRoute(request.route, request.params) + queryString(request.query);
    const headers: Record<string, string> = {
      ...caller.traceHeaders,
      accept: 'application/json',
      authorization: caller.authorization,
      'x-request-id': caller.requestId,
    };
    let body: string | undefined;
    if (request.body !== undefined) {
      body = JSON.stringify(request.body);
      headers['content-type'] = 'application/json';
    }
    // One timer for the whole call, retries included: the shorter of the call's bound and what is left of the deadline.
    const left = caller.deadline ? Math.max(1, caller.deadline.at - Date.now()) : Infinity;
    const byDeadline = left < this.#timeoutMs;
    // A controller of our own, its timer cleared when the call ends: AbortSignal.timeout would keep
    // its timer pending for the whole bound after the answer, and AbortSignal.any adds weak
    // references for the garbage collector to process, on every call.
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(
      () => {
        timedOut = true;
        controller.abort();
      },
      byDeadline ? left : this.#timeoutMs,
    );
    const onCallerAbort = () => controller.abort();
    if (caller.signal?.aborted) controller.abort();
    else caller.signal?.addEventListener('abort', onCallerAbort, { once: true });
    const signal = controller.signal;
    const retryOptions = { retry: retryPolicy(Date.now() + Math.min(left, this.#timeoutMs), signal) };

    let status: number;
    let retryAfter: string | undefined;
    let json: boolean;
    let text: string;
    try {
      const response = await this.#dispatcher.request({
        method: request.method,
        path,
        headers,
        body,
        signal,
        retryOptions,
      } as Dispatcher.RequestOptions);
      status = response.statusCode;
      onStatus?.(status);
      retryAfter = firstOf(response.headers['retry-after']);
      json = isJsonType(firstOf(response.headers['content-type']));
      // A body that is not JSON is never read: an HTML error page says nothing more than its status.
      text = '';
      if (json) text = await response.body.text();
      else await response.body.dump();
    } catch (error) {
      throw this.#transportFailure(error, timedOut, byDeadline ? caller.deadline : undefined);
    } finally {
      clearTimeout(timer);
      caller.signal?.removeEventListener('abort', onCallerAbort);
    }
    return parseAnswer({ status, json, text, retryAfter, token: caller.authorization.replace(/^Bearer\s+/i, '') });
  }

  /** Stops the breaker and closes the pool, letting requests in flight finish. */
  close(): Promise<void> {
    this.#breaker.close();
    return this.#pool.close();
  }

  #transportFailure(error: unknown, timedOut: boolean, deadline: CallerHeaders['deadline']) {
    if (error instanceof undiciErrors.ResponseExceededMaxSizeError) {
      return upstreamBadResponse(`the body is larger than ${this.#maxResponseBytes} bytes`);
    }
    if (
      timedOut ||
      error instanceof undiciErrors.ConnectTimeoutError ||
      error instanceof undiciErrors.HeadersTimeoutError ||
      error instanceof undiciErrors.BodyTimeoutError
    ) {
      return deadline ? deadlineExceeded(deadline.ms) : upstreamTimeout(this.#timeoutMs);
    }
    return upstreamUnavailable();
  }
}

function queryString(query: UpstreamRequest['query']): string {
  if (!query) return '';
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) search.set(key, String(value));
  }
  const encoded = search.toString();
  return encoded === '' ? '' : `?${encoded}`;
}

const firstOf = (header: string | string[] | undefined) => (Array.isArray(header) ? header[0] : header);

/** `application/json` or any `+json` type, as the contract's "bodies are JSON" is served in practice. */
function isJsonType(contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

interface Answer {
  status: number;
  /** Whether Content-Type says JSON; `text` is empty otherwise. */
  json: boolean;
  text: string;
  retryAfter: string | undefined;
  /** The caller's token, for redaction from error messages. */
  token: string;
}

/**
 * The envelope of a 2xx answer, or the failure it reports. Only `success: true` is a success: a
 * `"false"`, a missing `success` with errors, or anything else but a JSON envelope is not.
 */
function parseAnswer({ status, json, text, retryAfter, token }: Answer): Envelope {
  const parsed = json ? parseJson(text) : undefined;
  const envelope =
    typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  if (status < 200 || status > 299) {
    throw upstreamFailure({ status, errors: envelope?.errors, retryAfter, token });
  }
  if (!json) throw upstreamBadResponse('the Content-Type is not JSON');
  if (parsed === undefined) throw upstreamBadResponse('the body is not JSON');
  if (!envelope || !('result' in envelope)) throw upstreamBadResponse('the body is not a response envelope');
  if (envelope.success === true) return { result: envelope.result, links: envelope.links };
  if (envelope.success === false || (Array.isArray(envelope.errors) && envelope.errors.length > 0)) {
    throw upstreamFailure({ status, errors: envelope.errors, retryAfter, token });
  }
  throw upstreamBadResponse('the envelope’s success is not true');
}
