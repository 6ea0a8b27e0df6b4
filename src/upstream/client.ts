import { Pool, errors as undiciErrors } from 'undici';
import { upstreamBadResponse, upstreamFailure, upstreamTimeout, upstreamUnavailable } from './errors.js';
import { fillRoute } from './route.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH';

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
}

export interface Envelope {
  result: unknown;
  links: unknown;
}

export interface UpstreamClientOptions {
  /** Base URL ending in /v2. */
  baseUrl: URL;
  /** Bounds each upstream request, connect to last body byte. */
  timeoutMs: number;
  /** Keep-alive sockets kept open to the upstream origin. @default 128 */
  connections?: number;
  /** Told about every finished upstream call, for logs, metrics and traces. @default none */
  onCall?: (call: UpstreamCall) => void;
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
 * The gateway's only way to the upstream: one keep-alive pool to UPSTREAM_URL's origin. It sends
 * the caller's own Authorization header and turns every failure into an `UpstreamFailure`.
 */
export class UpstreamClient {
  readonly #pool: Pool;
  readonly #basePath: string;
  readonly #timeoutMs: number;
  readonly #onCall: ((call: UpstreamCall) => void) | undefined;

  constructor({ baseUrl, timeoutMs, connections = 128, onCall }: UpstreamClientOptions) {
    this.#pool = new Pool(baseUrl.origin, {
      connections,
      keepAliveTimeout: 30_000,
      connectTimeout: timeoutMs,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    this.#basePath = baseUrl.pathname.replace(/\/+$/, '');
    this.#timeoutMs = timeoutMs;
    this.#onCall = onCall;
  }

  /** Socket counts of the keep-alive pool (connected, free, pending, running, size). */
  get stats() {
    return this.#pool.stats;
  }

  async request(request: UpstreamRequest, caller: CallerHeaders): Promise<Envelope> {
    if (!this.#onCall) return this.#request(request, caller);
    const started = performance.now();
    let status: number | undefined;
    let errorCode: string | undefined;
    try {
      return await this.#request(request, caller, (s) => (status = s));
    } catch (error) {
      errorCode = String((error as { extensions?: { code?: unknown } }).extensions?.code ?? 'INTERNAL_SERVER_ERROR');
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

  async #request(request: UpstreamRequest, caller: CallerHeaders, onStatus?: (status: number) => void): Promise<Envelope> {
    const path = this.#basePath + fillRoute(request.route, request.params) + queryString(request.query);
    const headers: Record<string, string> = {
      accept: 'application/json',
      authorization: caller.authorization,
      'x-request-id': caller.requestId,
    };
    let body: string | undefined;
    if (request.body !== undefined) {
      body = JSON.stringify(request.body);
      headers['content-type'] = 'application/json';
    }
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const signal = caller.signal ? AbortSignal.any([caller.signal, timeout]) : timeout;

    let status: number;
    let retryAfter: string | undefined;
    let text: string;
    try {
      const response = await this.#pool.request({ method: request.method, path, headers, body, signal });
      status = response.statusCode;
      onStatus?.(status);
      const header = response.headers['retry-after'];
      retryAfter = Array.isArray(header) ? header[0] : header;
      text = await response.body.text();
    } catch (error) {
      throw this.#transportFailure(error, timeout);
    }
    return parseAnswer(status, text, retryAfter);
  }

  close(): Promise<void> {
    return this.#pool.close();
  }

  #transportFailure(error: unknown, timeout: AbortSignal) {
    if (
      timeout.aborted ||
      error instanceof undiciErrors.ConnectTimeoutError ||
      error instanceof undiciErrors.HeadersTimeoutError ||
      error instanceof undiciErrors.BodyTimeoutError
    ) {
      return upstreamTimeout(this.#timeoutMs);
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

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function parseAnswer(status: number, text: string, retryAfter: string | undefined): Envelope {
  const parsed = parseJson(text);
  const envelope = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  if (status < 200 || status > 299) {
    throw upstreamFailure({ status, errors: envelope?.errors, retryAfter });
  }
  if (parsed === undefined) throw upstreamBadResponse('the body is not JSON');
  if (!envelope || !('result' in envelope)) throw upstreamBadResponse('the body is not a response envelope');
  if (envelope.success === false) throw upstreamFailure({ status, errors: envelope.errors, retryAfter });
  return { result: envelope.result, links: envelope.links };
}
