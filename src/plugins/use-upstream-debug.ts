import { timingSafeEqual } from 'node:crypto';
import type { ExecutionResult } from 'graphql';
import { isAsyncIterable, mapAsyncIterator, type Plugin } from 'graphql-yoga';
import { defaultSettings } from '../config/settings.js';
import { type OperationRecord, recordOf, requestRecords } from '../observability/operation-record.js';
import type { UpstreamCall } from '../upstream/client.js';

export interface UpstreamDebugOptions {
  /** Production: a request sees its calls only with DEBUG_UPSTREAM_KEY (NODE_ENV=production). @default false */
  production?: boolean;
  /** The key a request must give in production (DEBUG_UPSTREAM_KEY); unset by default, and then none sees its calls there. */
  debugUpstreamKey?: string | undefined;
}

const DEFAULTS = defaultSettings();

/** `1` or `dry-run`, and `; key=<key>` where production asks for one. */
const REQUEST = /^\s*(1|dry-run)\s*(?:;\s*key=(\S+)\s*)?$/;

/** Query parameters whose values are never shown: credentials, keys, signatures. */
const SECRET_PARAMETER = /token|key|secret|password|signature|auth|credential/i;

/** One upstream call as the caller sees it in `extensions.upstream.calls`. */
export interface ShownCall {
  method: string;
  route: string;
  /** Path and query below UPSTREAM_URL, never its origin; secret query parameters redacted. */
  url: string;
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
  /** The write a dry run built and did not send. */
  dryRun?: NonNullable<OperationRecord['dryRun']>;
}

/**
 * What happened upstream, for a request that asks (`X-Debug-Upstream: 1`): its operations' upstream
 * calls, read from their records, in `extensions.upstream` (`calls`, and `cache: 'hit'` for an
 * answer from the read cache, which made none), and a `Server-Timing` header. Outside production a
 * request asks with the header alone; in production only with DEBUG_UPSTREAM_KEY, given in it
 * (`1; key=…`), and a request without it gets nothing and no hint. `dry-run` also keeps every
 * write from being sent: its Caller builds it, keeps it in `extensions.upstream.dryRun` and fails
 * the field with DRY_RUN; a dry run asked for without the key is one all the same, shown nothing,
 * since sending the write would do what its caller asked not to. An answer in parts shows in each part the calls that finished since the
 * one before. Such answers are never kept in the read cache (useResponseCache) and their contents
 * are never logged. What a call shows holds no header, and so no token.
 */
export function useUpstreamDebug({
  production = DEFAULTS.production,
  debugUpstreamKey = DEFAULTS.debugUpstreamKey,
}: UpstreamDebugOptions = {}): Plugin {
  const key = debugUpstreamKey === undefined ? undefined : Buffer.from(debugUpstreamKey);
  const asked = (header: string | null): OperationRecord['debug'] => {
    const parsed = header === null ? null : REQUEST.exec(header);
    if (!parsed) return undefined;
    const show = !production || (key !== undefined && parsed[2] !== undefined && sameKey(key, Buffer.from(parsed[2])));
    const dryRun = parsed[1] === 'dry-run';
    // A dry run asked for is one, seen or not: a write the caller meant not to make is never sent.
    return show || dryRun ? { show, dryRun } : undefined;
  };
  return {
    onParams: ({ request, context }) => {
      recordOf(context).debug = asked(request.headers.get('x-debug-upstream'));
    },
    onExecutionResult: ({ result, setResult, context }) => {
      const record = recordOf(context);
      if (!record.debug?.show || !result || isAsyncIterable(result)) return;
      setResult(withUpstream(result, upstreamOf(record)));
    },
    onResultProcess: ({ result, setResult, serverContext }) => {
      const [record] = requestRecords(serverContext);
      if (!record?.debug?.show || !isAsyncIterable(result)) return;
      setResult(mapAsyncIterator(result, (part: ExecutionResult) => withUpstream(part, upstreamOf(record))));
    },
    onResponse: ({ response, serverContext }) => {
      const records = requestRecords(serverContext).filter((record) => record.debug?.show);
      if (records.length === 0) return;
      response.headers.set('server-timing', serverTiming(records));
    },
  };
}

/** Compares keys in constant time, so that a guess learns nothing from how long the answer took. */
function sameKey(expected: Buffer, given: Buffer): boolean {
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** The calls of a record not shown yet (all of them, for a whole answer), shown now. */
function upstreamOf(record: OperationRecord): ShownUpstream {
  const shown = new Set(record.callsShown);
  const calls: ShownCall[] = [];
  record.upstreamCalls.forEach((call, slot) => {
    if (call === undefined || shown.has(call)) return;
    shown.add(call);
    calls.push(shownCall(record, call, record.upstreamCallPaths[slot] ?? []));
  });
  record.callsShown = shown;
  return {
    ...(record.cache === 'hit' ? { cache: 'hit' } : {}),
    calls,
    ...(record.dryRun ? { dryRun: record.dryRun } : {}),
  };
}

function shownCall(record: OperationRecord, call: UpstreamCall, paths: readonly string[]): ShownCall {
  return {
    method: call.method,
    route: call.route,
    url: redactedPath(call.path),
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

/** A result with `extensions.upstream`; an answer from the read cache, whose text is the stored one, gets it in its text. */
function withUpstream<T extends ExecutionResult>(result: T, upstream: ShownUpstream): T {
  const stored = (result as { stringify?: (value: unknown) => string }).stringify;
  if (stored) {
    return { ...result, stringify: (value: unknown) => JSON.stringify({ ...JSON.parse(stored(value)), extensions: { upstream } }) };
  }
  return { ...result, extensions: { ...result.extensions, upstream } };
}

/** `upstream;dur=<ms of every call>;desc="<n> calls"`, and `cache;desc=<outcome>` where the read cache had a say. */
function serverTiming(records: readonly OperationRecord[]): string {
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
