import type { GraphQLError } from 'graphql';
import { MAX_NAME_LENGTH } from './config/parsers.js';
import { codeOf } from './errors.js';
import { type ClientIdentity, clientOf } from './http/client-identity.js';
import { requestIdFrom } from './http/request-id.js';
import type { RequestBudget } from './upstream/budget.js';
import type { UpstreamCall } from './upstream/client.js';

const OPERATION_NAME = new RegExp(`^[_A-Za-z][_0-9A-Za-z]{0,${MAX_NAME_LENGTH - 1}}$`);

/**
 * An operation's name as logs, traces and metrics record it: as given when it is a GraphQL name of
 * at most MAX_NAME_LENGTH characters, as client names are bounded (`clientOf`), and `other`
 * otherwise. Callers choose it, as `operationName` or in the document.
 */
export function recordedOperationName(name: string | null | undefined): string | undefined {
  if (name === null || name === undefined || name === '') return undefined;
  return OPERATION_NAME.test(name) ? name : 'other';
}

/** `hit`: answered from the read cache; `miss`: executed and, if it could be, stored; `bypass`: the caller asked for a fresh answer (`Cache-Control: no-cache`). */
export type CacheOutcome = 'hit' | 'miss' | 'bypass';

/**
 * What the gateway did with a mutation's Idempotency-Key (useIdempotency): `claimed` while the
 * mutation runs under it, then `stored` (its answer kept), `released` (nothing reached the upstream:
 * the key forgotten) or `unknown` (a write sent got no answer); for a mutation that did not run,
 * `replayed` (the key's answer given again), `conflict` (the key's first request still runs),
 * `reused` (the key was another request's), `unknown` (its first request's outcome is unknown) or
 * `unavailable` (the store of keys could not be asked).
 */
export type IdempotencyOutcome = 'claimed' | 'stored' | 'released' | 'replayed' | 'conflict' | 'reused' | 'unknown' | 'unavailable';

/** A deprecated element an operation used: its schema coordinate, and its deprecation as declared (src/schema/deprecation.ts). */
export interface DeprecationUse {
  coordinate: string;
  reason: string;
  since: string | undefined;
  sunset: string | undefined;
  link: string | undefined;
}

/** What the operations of one HTTP request share, a batch's every one. */
export interface RequestScope {
  /** Its upstream calls, time and answer bytes (MAX_UPSTREAM_CALLS, REQUEST_DEADLINE_MS, UPSTREAM_MAX_BYTES), made by its first Caller. */
  budget?: RequestBudget;
}

/** An answer in parts (`@defer`, `@stream`) as it goes out. */
export interface IncrementalParts {
  /** Parts sent so far. */
  parts: number;
  /** When the first part went out, from reading the request. */
  firstPartMs: number;
  /** Whether the last part went out (false while it streams, and for good when the client went away first). */
  complete: boolean;
  /** No part follows: the last went out, the parts failed, or the client went away. */
  ended: boolean;
}

/**
 * The facts the gateway learns of one GraphQL operation while it answers it: the plugins write them,
 * the operation's upstream calls report into it, and the log line, the metrics, the traces, the
 * upstream view and the answer's headers read them. A request has one, or one per operation of a
 * batch, opened when its parsing starts (useOperationRecords) or by the hit path before Yoga; the
 * operation's context holds its own (`recordOf`) and the request's server context every one of them,
 * in the batch's order (`requestRecords`). A fact that more than its writer reads is a field here;
 * what one plugin keeps between its own hooks is its working state, in an `OperationSlot` of its own.
 */
export class OperationRecord {
  /** The operation's name as `recordedOperationName` bounds it: as sent, then as the document that ran says. */
  operationName: string | undefined;
  operationType: 'query' | 'mutation' | 'subscription' | undefined;
  /** It passed validation and ran (an answer from the cache or a refusal did not). */
  executed = false;
  /** Its answer holds a non-null top-level field. */
  hasData = false;
  /** Distinct `extensions.code` values of its answer's errors, in order of appearance. */
  readonly errorCodes: string[] = [];
  /** The HTTP status of the response, once it is written. */
  status: number | undefined;
  /** Its client went away before its answer (or, for an answer in parts, its last part) was out. */
  clientClosed = false;
  /** Whether its answer may come in parts (`@defer`, `@stream`): not in a batch, nor under an Idempotency-Key (useIdempotency), and to a client that takes them (useIncrementalDelivery). */
  answeredInParts: boolean | undefined;
  /** Set when it is answered in parts. */
  incremental: IncrementalParts | undefined;
  /** The upstream calls it was estimated to make before it ran (useUpstreamBudget); undefined when it did not get that far. */
  estimatedCalls: number | undefined;
  /** Its upstream calls in the order they were sent, each undefined until it is over. */
  readonly upstreamCalls: Array<UpstreamCall | undefined> = [];
  /** The GraphQL paths each of its upstream calls served (by the call's place): its root field's, and any that shared the read. */
  readonly upstreamCallPaths: string[][] = [];
  /**
   * What the caller asked of the upstream with `X-Debug-Upstream` (useUpstreamDebug): to see the
   * calls (`show`, where it may), and a dry run of the writes (`dryRun`, kept even where it may not see).
   */
  debug: { show: boolean; dryRun: boolean } | undefined;
  /** The writes a dry run did not send, in the order they were built: what each would have sent (its Caller). */
  readonly dryRuns: Array<{ method: string; path: string; body: unknown }> = [];
  /** What the read cache did with it; undefined when the cache had no say (off, no token, refused before it). */
  cache: CacheOutcome | undefined;
  /** The schema coordinates it used, once it ran: what it selected and passed, and what its variables sent (useFieldUsage). */
  coordinates: readonly string[] | undefined;
  /** The deprecated elements it used (useFieldUsage). */
  deprecations: readonly DeprecationUse[] | undefined;
  /** Headers the gateway itself gives its answer: `Deprecation`, `Sunset` and `Link` of what it used that is deprecated (useFieldUsage). */
  noticeHeaders: Readonly<Record<string, string>> | undefined;
  /** The client's headers its upstream calls send on (FORWARD_HEADERS), and those dropped as unsendable (useUpstreamHeaders). */
  forwardedHeaders: { headers: Readonly<Record<string, string>>; dropped: readonly string[] } | undefined;
  /** The headers a stored answer gives back, as it was stored with them: a read cache hit's (useResponseCache), an idempotency key's replay (useIdempotency). */
  replayedHeaders: Readonly<Record<string, string>> | undefined;
  /** What became of its Idempotency-Key; undefined without one, on an operation that is no mutation, or in a dry run (useIdempotency). */
  idempotency: IdempotencyOutcome | undefined;

  /** The working state `OperationSlot`s keep for it, each at its slot's place: read and written through the slots alone. */
  readonly slots: unknown[] = [];

  constructor(
    readonly requestId: string,
    readonly client: ClientIdentity,
    /** Its place in a batched request (a JSON array); undefined for a single operation. */
    readonly batch: { index: number; size: number } | undefined = undefined,
    /** When the request was read (performance.now()): every operation of a batch has its request's. */
    readonly startedAt: number = performance.now(),
    /** What the operations of its HTTP request share: one for a request, the same for each operation of a batch. */
    readonly request: RequestScope = {},
  ) {}

  /** The record of a request read from its headers before Yoga made a Request of it (the hit path): its id and its calling app. */
  static ofHeaders(headers: Pick<Headers, 'get'>, arrived: number): OperationRecord {
    return new OperationRecord(requestIdFrom(headers.get('x-request-id')), clientOf(headers), undefined, arrived);
  }

  /** Adds the codes of `errors` not already noted. */
  noteErrors(errors: readonly GraphQLError[] | undefined): void {
    for (const error of errors ?? []) {
      const code = codeOf(error);
      if (!this.errorCodes.includes(code)) this.errorCodes.push(code);
    }
  }

  /** Whether the upstream accepted the caller's credential in this very operation (`acceptedByUpstream`). */
  acceptedByUpstream(): boolean {
    return acceptedByUpstream(this.upstreamCalls.map((call) => call?.status));
  }

  /**
   * Takes the next place among the upstream calls, for the call that serves `paths` (an array that
   * may grow as more fields share the read); the returned function fills it with the call once it is over.
   */
  callSent(paths: string[] = []): (call: UpstreamCall) => void {
    const slot = this.upstreamCalls.push(undefined) - 1;
    this.upstreamCallPaths[slot] = paths;
    return (call) => {
      this.upstreamCalls[slot] = call;
    };
  }
}

/**
 * Whether calls that got these statuses vouch for their caller: one got an answer other than 401 or
 * 403, so the upstream accepted the credential. Only then may an answer be kept in the read cache,
 * a token count as a caller of its own for the rate limit, or a name take a label of the metrics:
 * a token nobody checked buys nothing.
 */
export function acceptedByUpstream(statuses: ReadonlyArray<number | undefined>): boolean {
  return statuses.some((status) => status !== undefined && status !== 401 && status !== 403);
}

/** Where the records hang on a context: symbols, so that no other field of Yoga's context or ours can clash with them. */
const RECORD = Symbol('operation record');
const RECORDS = Symbol('operation records of the request');
const OPENED = Symbol('record opened for the request');
const BATCH = Symbol('operations of the batch, as parsed');
const BEFORE_YOGA = Symbol('record opened before Yoga');

/**
 * The request's server context holds every record, and the record of a single operation, whose
 * context it is; each operation of a batch has a context of its own, which inherits from the server
 * context and holds its own record. Written by the functions below alone.
 */
interface RecordedContext {
  [RECORD]?: OperationRecord | undefined;
  [RECORDS]?: OperationRecord[];
  /** The record opened for the request, before it was known to be a batch. */
  [OPENED]?: OperationRecord;
  [BATCH]?: readonly unknown[] | undefined;
}

/**
 * The record of the operation whose GraphQL context this is. Every hook that has such a context
 * runs after useOperationRecords opened it: one missing is a plugin list in the wrong order, and
 * fails rather than let a plugin go on without its state.
 */
export function recordOf(context: object): OperationRecord {
  const record = (context as RecordedContext)[RECORD];
  if (!record) throw new Error('No operation record: useOperationRecords must come before the plugins that read it.');
  return record;
}

/** Every record of the request whose server context this is, in the batch's order; none before its parsing began (`/health`). */
export function requestRecords(serverContext: object): readonly OperationRecord[] {
  return (serverContext as RecordedContext)[RECORDS] ?? [];
}

/**
 * The record the hit path (src/hit-path/) opened for a request it read before Yoga and hands on to
 * it, hung on its node:http request, which Yoga's server context holds as `req`:
 * useOperationRecords opens it in place of a new one, and what the hit path's steps did for it
 * (the rate limit's count, the read cache's lookup) is found in their slots, not done again.
 */
export function openBeforeYoga(req: object, record: OperationRecord): void {
  (req as { [BEFORE_YOGA]?: OperationRecord })[BEFORE_YOGA] = record;
}

/** The record the hit path opened for the node:http request of this server context, if it did. */
export function openedBeforeYoga(serverContext: object): OperationRecord | undefined {
  const { req } = serverContext as { req?: { [BEFORE_YOGA]?: OperationRecord } };
  return req?.[BEFORE_YOGA];
}

/** Opens the record of a request whose parsing begins, on its server context. */
export function openRecord(serverContext: object, record: OperationRecord): void {
  Object.assign(serverContext as RecordedContext, { [RECORDS]: [record], [RECORD]: record, [OPENED]: record, [BATCH]: undefined });
}

/** A batch, once parsed: one record per operation, in its order, in place of the request's. */
export function openBatchRecords(serverContext: object, operations: readonly unknown[]): void {
  const first = (serverContext as RecordedContext)[OPENED];
  if (!first) return;
  const size = operations.length;
  const records = operations.map(
    (_, index) => new OperationRecord(first.requestId, first.client, { index, size }, first.startedAt, first.request),
  );
  Object.assign(serverContext as RecordedContext, { [RECORDS]: records, [RECORD]: undefined, [BATCH]: operations });
}

/**
 * Gives a batch's operation, whose context and parameters these are, its own record to hold; a
 * single operation's context holds its own already. Parameters the batch does not hold are a
 * mistake of the plugins' and fail, rather than be summed up as another operation's.
 */
export function holdRecord(context: object, params: unknown): OperationRecord {
  const recorded = context as RecordedContext;
  const batch = recorded[BATCH];
  if (batch) {
    const index = batch.indexOf(params);
    if (index === -1) throw new Error('An operation that is not in its batch: a plugin replaced its parameters.');
    recorded[RECORD] = recorded[RECORDS]![index];
  }
  return recordOf(recorded);
}

/** A batch answered with one result (refused as a whole, over MAX_BATCH_SIZE) is one operation's: one line, not one per operation. */
export function answeredAsOne(serverContext: object): void {
  const recorded = serverContext as RecordedContext;
  if (recorded[BATCH] && recorded[OPENED]) openRecord(recorded, recorded[OPENED]);
}

/** How many slots there are: each takes the next place in every record's `slots`. */
let slotCount = 0;

/**
 * What one module keeps for an operation between its own steps (a plugin's working state: the
 * document it parsed, the lookup it made): beside the operation's record, readable only through this
 * slot, and gone with the record. Envelop's `withState` keeps a plugin's state per operation in a
 * WeakMap and wraps every hook of the plugin in a new payload on every call; a place of its own in
 * the record's array costs the hot path neither (measured in docs/performance.md, section "One path").
 */
export class OperationSlot<T> {
  readonly #place = slotCount++;

  get(record: OperationRecord): T | undefined {
    return record.slots[this.#place] as T | undefined;
  }

  set(record: OperationRecord, value: T): void {
    record.slots[this.#place] = value;
  }

  /** The value, and it is gone from the slot. */
  take(record: OperationRecord): T | undefined {
    const value = this.get(record);
    record.slots[this.#place] = undefined;
    return value;
  }
}
