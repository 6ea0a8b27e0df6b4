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
  /** Keep-alive sockets kept open to the upstream origin. */
  connections?: number;
}

/**
 * The gateway's only way to the upstream: one keep-alive pool to UPSTREAM_URL's origin. It sends
 * the caller's own Authorization header and turns every failure into an `UpstreamFailure`.
 */
export class UpstreamClient {
  readonly #pool: Pool;
  readonly #basePath: string;
  readonly #timeoutMs: number;

  constructor({ baseUrl, timeoutMs, connections = 128 }: UpstreamClientOptions) {
    this.#pool = new Pool(baseUrl.origin, {
      connections,
      keepAliveTimeout: 30_000,
      connectTimeout: timeoutMs,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    this.#basePath = baseUrl.pathname.replace(/\/+$/, '');
    this.#timeoutMs = timeoutMs;
  }

  async request(request: UpstreamRequest, caller: CallerHeaders): Promise<Envelope> {
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
