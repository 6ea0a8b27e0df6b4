import { type OperationRecord, OperationSlot } from '../operation-record.js';
import type { UpstreamCall } from '../upstream/client.js';

/*
 * The upstream view: what a request that asks (X-Debug-Upstream, useUpstreamDebug) is shown of its
 * operations' upstream calls, read from their records: `extensions.upstream` of an answer or of each
 * of its parts, which GraphiQL's Upstream tab reads (src/graphiql/), and the `Server-Timing` header.
 * What a call shows holds no header, and so no token.
 */

/** Query parameters and body members whose values are never shown: credentials, keys, signatures. */
const SECRET_PARAMETER = /token|key|secret|password|signature|auth|credential/i;

/** A write's body is shown up to this many bytes of JSON: a debug answer stays small, and a longer body is only sized. */
const MAX_SHOWN_BODY_BYTES = 4096;

/** One upstream call as the caller sees it in `extensions.upstream.calls`. */
export interface ShownCall {
  method: string;
  route: string;
  /** Path and query below UPSTREAM_URL, never its origin; secret query parameters redacted. */
  url: string;
  /** The bytes of JSON a write sent; absent for a call that sent no body. */
  bodyBytes?: number;
  /** That body, when it is at most MAX_SHOWN_BODY_BYTES, with the values of members named like a secret redacted as in `url`. */
  body?: unknown;
  status: number | null;
  durationMs: number;
  /** From the start of the operation. */
  startMs: number;
  attempt: number;
  /** Why each retry before the last attempt was made. */
  retryReasons: readonly string[];
  cache: 'miss' | 'coalesced';
  paths: readonly string[];
  errors: readonly string[];
}

/** `extensions.upstream` of an answer, or of one of its parts: what GraphiQL's Upstream tab reads too. */
export interface ShownUpstream {
  /** An answer from the read cache, which made no call. */
  cache?: 'hit';
  calls: ShownCall[];
  /** The writes a dry run built and did not send, in order. */
  dryRuns?: OperationRecord['dryRuns'];
}

/**
 * What operations show of their upstream calls, part after part: each view holds the calls that
 * finished since the one before (all of them, for a whole answer). One per plugin that shows them,
 * which keeps the calls each operation has shown.
 */
export class UpstreamViews {
  readonly #shown = new OperationSlot<Set<UpstreamCall>>();

  /** The calls of a record not shown yet, shown now. */
  next(record: OperationRecord): ShownUpstream {
    const shown = this.#shown.get(record) ?? new Set();
    this.#shown.set(record, shown);
    const calls: ShownCall[] = [];
    record.upstreamCalls.forEach((call, slot) => {
      if (call === undefined || shown.has(call)) return;
      shown.add(call);
      calls.push(shownCall(record, call, record.upstreamCallPaths[slot] ?? []));
    });
    return {
      ...(record.cache === 'hit' ? { cache: 'hit' } : {}),
      calls,
      ...(record.dryRuns.length > 0 ? { dryRuns: record.dryRuns } : {}),
    };
  }
}

function shownCall(record: OperationRecord, call: UpstreamCall, paths: readonly string[]): ShownCall {
  return {
    method: call.method,
    route: call.route,
    url: redactedPath(call.path),
    ...shownBody(call.body),
    status: call.status ?? null,
    durationMs: round(call.durationMs),
    startMs: round(call.startedAt - record.startedAt),
    attempt: call.retries.length + 1,
    retryReasons: call.retries,
    cache: call.coalesced ? 'coalesced' : 'miss',
    paths,
    errors: call.errorCode === undefined ? [] : [call.errorCode],
  };
}

/** A path with the values of its secret query parameters replaced. */
export function redactedPath(path: string): string {
  const query = path.indexOf('?');
  if (query === -1) return path;
  const parameters = new URLSearchParams(path.slice(query + 1));
  for (const name of [...parameters.keys()]) if (SECRET_PARAMETER.test(name)) parameters.set(name, '[redacted]');
  return `${path.slice(0, query)}?${parameters.toString().replaceAll('%5Bredacted%5D', '[redacted]')}`;
}

/** What a call shows of the body it sent: its size, and itself (redacted) unless it is larger than a debug answer should carry. */
function shownBody(body: UpstreamCall['body']): Pick<ShownCall, 'bodyBytes' | 'body'> {
  if (body === undefined) return {};
  const bodyBytes = Buffer.byteLength(JSON.stringify(body));
  return bodyBytes > MAX_SHOWN_BODY_BYTES ? { bodyBytes } : { bodyBytes, body: redactedBody(body) };
}

/** A JSON value with the values of its members named like a secret (at any depth) replaced, as `redactedPath` replaces query values. */
export function redactedBody(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactedBody);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([name, member]) => [name, SECRET_PARAMETER.test(name) ? '[redacted]' : redactedBody(member)]),
  );
}

/** `upstream;dur=<ms of every call>;desc="<n> calls"`, and `cache;desc=<outcome>` where the read cache had a say. */
export function serverTiming(records: readonly OperationRecord[]): string {
  const calls = records.flatMap((record) => record.upstreamCalls.filter((call) => call !== undefined));
  // The sum of the durations extensions.upstream shows, rounded as they are, so that the two agree to the tenth.
  const total = calls.reduce((sum, call) => sum + round(call.durationMs), 0);
  const caches = [...new Set(records.map((record) => record.cache).filter((outcome) => outcome !== undefined))];
  return [
    `upstream;dur=${round(total)};desc="${calls.length} ${calls.length === 1 ? 'call' : 'calls'}"`,
    ...caches.map((outcome) => `cache;desc=${outcome}`),
  ].join(', ');
}

const round = (ms: number) => Math.round(ms * 10) / 10;
