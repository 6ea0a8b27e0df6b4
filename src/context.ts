import DataLoader from 'dataloader';
import type { YogaInitialContext } from 'graphql-yoga';
import type { SectionSettings } from './config/settings.js';
import { bearerCredential } from './http/bearer.js';
import { type OperationRecord, recordOf } from './observability/operation-record.js';
import { requestIdOf } from './observability/request-id.js';
import { RequestBudget } from './upstream/budget.js';
import type { Envelope, UpstreamClient, UpstreamRequest } from './upstream/client.js';

/**
 * Everything that belongs to one GraphQL request: the caller's credentials and its request id, and
 * the loaders that deduplicate its upstream reads. Made once per request and never shared; the
 * loaders are only built when a resolver needs them. Each upstream call is reported to the
 * operation's record.
 */
class Caller {
  /** The caller's Bearer credential in its one spelling (`bearerCredential`), forwarded as such; null without one. */
  readonly authorization: string | null;
  readonly requestId: string;
  /** Upstream calls and time left, shared by every operation of the HTTP request (a batch has several). */
  readonly budget: RequestBudget;
  readonly #request: Request;
  readonly #client: UpstreamClient;
  readonly #record: OperationRecord | undefined;
  #reads: DataLoader<UpstreamRequest, Envelope, string> | undefined;

  constructor(request: Request, client: UpstreamClient, budget: RequestBudget, record: OperationRecord | undefined) {
    this.authorization = bearerCredential(request.headers.get('authorization')) ?? null;
    this.requestId = requestIdOf(request);
    this.budget = budget;
    this.#request = request;
    this.#client = client;
    this.#record = record;
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
    const exceeded = this.budget.spend();
    if (exceeded) throw exceeded;
    const caller = { authorization: this.authorization, requestId: this.requestId, forwarded: this.#record?.forwardedHeaders?.headers };
    // Its place is taken when it is sent, so that a summary made while it is in flight (a client gone mid-stream) counts it.
    const report = this.#record?.callSent();
    const limits = { signal: this.#request.signal, deadline: this.budget.deadline, bytes: this.budget.bytes };
    const { envelope } = await this.#client.request(request, caller, limits, report);
    return envelope;
  }
}

/**
 * Yoga's `context` option: one Caller per operation, reporting to the operation's record, and one
 * budget per HTTP request, shared by the operations of a batch (keyed by the Request, so it lives
 * exactly as long as the request).
 */
export function callerContext(client: UpstreamClient, settings: SectionSettings<'upstream'>) {
  const budgets = new WeakMap<Request, RequestBudget>();
  return (context: { request: Request }): CallerContext => {
    const { request } = context;
    let budget = budgets.get(request);
    if (!budget) {
      budget = new RequestBudget(settings);
      budgets.set(request, budget);
    }
    return { caller: new Caller(request, client, budget, recordOf(context)) };
  };
}

/** What the gateway adds to Yoga's context. */
export interface CallerContext {
  caller: Caller;
}

export type GatewayContext = YogaInitialContext & CallerContext;
