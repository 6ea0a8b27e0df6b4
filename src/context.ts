import DataLoader from 'dataloader';
import type { YogaInitialContext } from 'graphql-yoga';
import type { Settings } from './config/settings.js';
import { requestIdOf } from './observability/request-id.js';
import { upstreamCallsExceeded } from './upstream/budget.js';
import type { Envelope, UpstreamClient, UpstreamRequest } from './upstream/client.js';

/** RFC 6750 credentials: the scheme is case-insensitive, the token a non-empty token68. */
const BEARER = /^Bearer +[A-Za-z0-9\-._~+/]+=*$/i;

/**
 * Everything that belongs to one GraphQL request: the caller's credentials and its request id, and
 * the loaders that deduplicate its upstream reads. Made once per request and never shared; the
 * loaders are only built when a resolver needs them.
 */
export class Caller {
  /** The caller's Authorization header, forwarded unchanged; null unless it is a Bearer credential. */
  readonly authorization: string | null;
  readonly requestId: string;
  /** Upstream calls sent for this request so far, for the request's log line. */
  upstreamCalls = 0;
  /** Whether the upstream answered a call with anything but 401 or 403, i.e. took the token as real. */
  upstreamAccepted = false;
  readonly #request: Request;
  readonly #client: UpstreamClient;
  #reads: DataLoader<UpstreamRequest, Envelope, string> | undefined;
  readonly #maxUpstreamCalls: number;
  readonly #deadline: { at: number; ms: number };

  constructor(request: Request, client: UpstreamClient, limits: Pick<Settings, 'requestDeadlineMs' | 'maxUpstreamCalls'>) {
    const authorization = request.headers.get('authorization');
    this.authorization = authorization !== null && BEARER.test(authorization) ? authorization : null;
    this.requestId = requestIdOf(request);
    this.#request = request;
    this.#client = client;
    this.#maxUpstreamCalls = limits.maxUpstreamCalls;
    this.#deadline = { at: Date.now() + limits.requestDeadlineMs, ms: limits.requestDeadlineMs };
  }

  /** Sends a write: never deduplicated, never cached. */
  write(request: UpstreamRequest): Promise<Envelope> {
    return this.#send(request);
  }

  /** Sends a read; identical reads within this GraphQL request share one upstream call. */
  read(request: UpstreamRequest): Promise<Envelope> {
    this.#reads ??= new DataLoader((requests) => Promise.all(requests.map((r) => this.#send(r).catch((error: Error) => error))), {
      cacheKeyFn: (r) => JSON.stringify([r.route, r.params, r.query]),
    });
    return this.#reads.load(request);
  }

  async #send(request: UpstreamRequest): Promise<Envelope> {
    if (this.authorization === null) throw new Error('Upstream call without credentials: the bearer plugin must run first.');
    // The last guard of MAX_UPSTREAM_CALLS: useUpstreamBudget rejects most offenders before they start.
    if (this.upstreamCalls >= this.#maxUpstreamCalls) throw upstreamCallsExceeded(this.#maxUpstreamCalls);
    this.upstreamCalls++;
    try {
      const envelope = await this.#client.request(request, {
        authorization: this.authorization,
        requestId: this.requestId,
        signal: this.#request.signal,
        deadline: this.#deadline,
      });
      this.upstreamAccepted = true;
      return envelope;
    } catch (error) {
      const status = (error as { extensions?: { upstream?: { status?: unknown } } }).extensions?.upstream?.status;
      if (typeof status === 'number' && status !== 401 && status !== 403) this.upstreamAccepted = true;
      throw error;
    }
  }
}

/** What the gateway adds to Yoga's context. */
export interface CallerContext {
  caller: Caller;
}

export type GatewayContext = YogaInitialContext & CallerContext;
