import type { Settings } from '../config/settings.js';
import { acceptsGzip } from '../http/accept-encoding.js';
import { NO_STORE } from '../http/cache-control.js';
import { gzipped } from '../http/gzip.js';
import { varyingOn } from '../http/vary.js';
import type { OperationRecord } from '../operation-record.js';
import { type CorsPolicy, corsPolicy } from './cors.js';
import { returnedHeaders } from './returned-headers.js';
import { HTML_PAGE_HEADERS, SECURITY_HEADERS } from './security-headers.js';

/** What finishing an answer reads of its request. */
export interface AnswerRequest {
  readonly method: string;
  readonly headers: Pick<Headers, 'get'>;
}

/** An answer's headers as they are finished: the Fetch API's `Headers` of Yoga's answers, or `HeaderLines` of one written on node:http. */
export interface AnswerHeaders {
  get(name: string): string | null;
  has(name: string): boolean;
  set(name: string, value: string): void;
  delete(name: string): void;
}

export type AnswerSettings = Pick<Settings, 'returnHeaders' | 'compressionMinBytes' | 'corsOrigins' | 'corsAllowCredentials'>;

/**
 * What finishes every answer the gateway writes: Yoga's (useAnswerFinishing), a read cache hit the
 * hit path answers (src/hit-path/), and each refusal the HTTP front writes before Yoga. Each header
 * policy is here, once:
 *
 * - `x-request-id`, so a caller can quote it when reporting a problem;
 * - `Idempotent-Replayed: true` on an answer an Idempotency-Key replays;
 * - the headers returned from the upstream and the gateway's notices (`returnedHeaders`), never
 *   over a header the answer has already (its RateLimit headers on a 429, say);
 * - the gateway's own caching policy (`NO_STORE`) on an answer that set no policy of its own, and
 *   on an event stream, whose `no-cache` from Yoga would let a shared cache store a result in parts;
 *   never on a preflight, which holds no caller data and which the browser caches through
 *   Access-Control-Max-Age (GraphiQL's static files keep their own);
 * - `nosniff` on every answer, and on an HTML page (GraphiQL's) its charset and the page's policy;
 * - CORS (`CorsPolicy`), with a `Vary` that names Origin on every answer and
 *   Access-Control-Request-Headers on every preflight, since a cache compares a request with the Vary
 *   of the answer it stored;
 * - and, where asked, the body gzipped (`gzips`, `gzipped`).
 */
export class AnswerFinisher {
  readonly #settings: AnswerSettings;
  readonly cors: CorsPolicy;

  constructor(settings: AnswerSettings) {
    this.#settings = settings;
    this.cors = corsPolicy(settings);
  }

  /** Gives an answer to `request` every header above; `records` are its operations' (none for an answer made before any was opened). */
  headers(request: AnswerRequest, headers: AnswerHeaders, requestId: string, records: readonly OperationRecord[]): void {
    const returned = returnedHeaders(records, this.#settings.returnHeaders);
    if (returned) for (const [name, value] of Object.entries(returned)) if (!headers.has(name)) headers.set(name, value);
    headers.set('x-request-id', requestId);
    // The draft's header on an answer given again under an Idempotency-Key (useIdempotency), not the first one.
    if (records.some((record) => record.idempotency === 'replayed')) headers.set('idempotent-replayed', 'true');
    if (request.method !== 'OPTIONS' && (!headers.has('cache-control') || headers.get('content-type')?.startsWith('text/event-stream'))) {
      // Deleted first: @whatwg-node's Headers made from an object keep its `Cache-Control` beside a `set` one, and send both.
      headers.delete('cache-control');
      headers.set('cache-control', NO_STORE);
    }
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) headers.set(name, value);
    const type = headers.get('content-type');
    if (type?.startsWith('text/html')) {
      if (!/charset=/i.test(type)) {
        // Deleted first, as above: a Response made from a headers object (Yoga's GraphiQL page: `Content-Type`)
        // kept that spelling beside the one `set` adds, and both went out on the wire.
        headers.delete('content-type');
        headers.set('content-type', 'text/html; charset=utf-8');
      }
      for (const [name, value] of Object.entries(HTML_PAGE_HEADERS)) headers.set(name, value);
    }
    if (!this.cors.on) return;
    const cors = this.cors.headersFor(request);
    for (const [name, value] of Object.entries(cors.headers)) headers.set(name, value);
    headers.set('vary', cors.vary.reduce<string | null>((vary, header) => varyingOn(vary, header), headers.get('vary'))!);
  }

  /**
   * Whether an answer with these headers is to be gzipped: at least COMPRESSION_MIN_BYTES long, not
   * coded already, to a caller that accepts gzip (gzip only, each choice measured in
   * docs/performance.md, section Compression).
   */
  gzips(request: AnswerRequest, headers: AnswerHeaders): boolean {
    const length = headers.get('content-length');
    return (
      length !== null &&
      Number(length) >= this.#settings.compressionMinBytes &&
      !headers.has('content-encoding') &&
      acceptsGzip(request.headers.get('accept-encoding'))
    );
  }

  /** The body gzipped (`gzipped`), and its headers saying so. */
  async gzipped(body: ArrayBuffer | Uint8Array, headers: AnswerHeaders): Promise<Buffer<ArrayBuffer>> {
    const zipped = await gzipped(body);
    headers.set('content-encoding', 'gzip');
    headers.set('content-length', String(zipped.length));
    headers.set('vary', varyingOn(headers.get('vary'), 'Accept-Encoding'));
    return zipped;
  }
}

/**
 * The headers of an answer written on node:http (the hit path's, a refusal before Yoga), as the
 * finishing reads and writes them: names in lower case, one value each, for `writeHead`.
 */
export class HeaderLines implements AnswerHeaders {
  readonly lines: Record<string, string>;

  constructor(lines: Record<string, string>) {
    this.lines = lines;
  }

  get(name: string): string | null {
    return this.lines[name] ?? null;
  }

  has(name: string): boolean {
    return this.lines[name] !== undefined;
  }

  set(name: string, value: string): void {
    this.lines[name] = value;
  }

  delete(name: string): void {
    delete this.lines[name];
  }
}
