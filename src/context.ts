import DataLoader from 'dataloader';
import type { YogaInitialContext } from 'graphql-yoga';
import type { SectionSettings } from './config/settings.js';
import { dryRun } from './errors.js';
import { bearerCredential } from './http/bearer.js';
import { requestIdOf } from './http/request-id.js';
import { type OperationRecord, recordOf } from './operation-record.js';
import { RequestBudget } from './upstream/budget.js';
import type { Envelope, UpstreamClient, UpstreamRequest } from './upstream/client.js';
import { pathOf } from './upstream/http-request.js';

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
  readonly #record: OperationRecord;
  #reads: DataLoader<UpstreamRequest, Envelope, string> | undefined;
  /** The GraphQL paths each read serves, by its key: only for an operation that asked to see its calls. */
  #readPaths: Map<string, string[]> | undefined;

  constructor(request: Request, client: UpstreamClient, budget: RequestBudget, record: OperationRecord) {
    this.authorization = bearerCredential(request.headers.get('authorization')) ?? null;
    this.requestId = requestIdOf(request);
    this.budget = budget;
    this.#request = request;
    this.#client = client;
    this.#record = record;
  }

  /**
   * Sends a write for the field at `path` (a GraphQL response path such as `createFolder`): never
   * deduplicated, never cached. Under a dry run (`X-Debug-Upstream: dry-run`) it is built and kept on
   * the operation's record, and not sent.
   */
  write(request: UpstreamRequest, path?: string): Promise<Envelope> {
    if (this.#record.debug?.dryRun) {
      this.#record.dryRuns.push({ method: request.method, path: pathOf(request), body: request.body ?? null });
      return Promise.reject(dryRun(this.#record.debug.show));
    }
    return this.#send(request, path === undefined ? [] : [path]);
  }

  /**
   * Sends a read for the field at `path`; identical reads within this GraphQL request share one
   * upstream call. The paths each call serves are kept only for an operation that asked to see its
   * calls (`X-Debug-Upstream`).
   */
  read(request: UpstreamRequest, path?: string): Promise<Envelope> {
    this.#reads ??= new DataLoader(
      (requests) => Promise.all(requests.map((r) => this.#send(r, this.#readPaths?.get(readKey(r)) ?? []).catch((error: Error) => error))),
      { cacheKeyFn: readKey },
    );
    if (this.#record.debug?.show && path !== undefined) {
      this.#readPaths ??= new Map();
      const key = readKey(request);
      const paths = this.#readPaths.get(key) ?? [];
      if (!paths.includes(path)) paths.push(path);
      this.#readPaths.set(key, paths);
    }
    return this.#reads.load(request);
  }

  async #send(request: UpstreamRequest, paths: string[]): Promise<Envelope> {
    if (this.authorization === null) throw new Error('Upstream call without credentials: the bearer plugin must run first.');
    // The last guard of MAX_UPSTREAM_CALLS: useUpstreamBudget rejects most offenders before they start.
    const exceeded = this.budget.spend();
    if (exceeded) throw exceeded;
    const caller = { authorization: this.authorization, requestId: this.requestId, forwarded: this.#record.forwardedHeaders?.headers };
    // Its place is taken when it is sent, so that a summary made while it is in flight (a client gone mid-stream) counts it.
    const report = this.#record.callSent(paths);
    // Under an Idempotency-Key a client that goes away does not abort the call: its answer is kept for the client's
    // retry, where an aborted write would have left its outcome unknown. The deadline still bounds it.
    const signal = this.#record.idempotency === 'claimed' ? undefined : this.#request.signal;
    const limits = { signal, deadline: this.budget.deadline, bytes: this.budget.bytes };
    const { call, envelope, failure } = await this.#client.request(request, caller, limits);
    report(call);
    if (failure !== undefined) throw failure;
    return envelope!;
  }
}

/** What makes two reads of one operation the same upstream call. */
const readKey = (request: UpstreamRequest) => JSON.stringify([request.route, request.params, request.query]);

/**
 * Yoga's `context` option: one Caller per operation, reporting to the operation's record, and one
 * budget per HTTP request, shared by the operations of a batch through their records' request scope.
 */
export function callerContext(client: UpstreamClient, settings: SectionSettings<'upstream'>) {
  return (context: { request: Request }): CallerContext => {
    const record = recordOf(context);
    record.request.budget ??= new RequestBudget(settings);
    return { caller: new Caller(context.request, client, record.request.budget, record) };
  };
}

/** What the gateway adds to Yoga's context. */
export interface CallerContext {
  caller: Caller;
}

export type GatewayContext = YogaInitialContext & CallerContext;
