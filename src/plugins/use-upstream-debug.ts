import { timingSafeEqual } from 'node:crypto';
import type { ExecutionResult } from 'graphql';
import { isAsyncIterable, mapAsyncIterator, type Plugin } from 'graphql-yoga';
import { defaultSettings } from '../config/settings.js';
import { type ShownUpstream, serverTiming, UpstreamViews } from '../observability/upstream-view.js';
import { type OperationRecord, recordOf, requestRecords } from '../operation-record.js';

export interface UpstreamDebugOptions {
  /** Production: a request sees its calls only with DEBUG_UPSTREAM_KEY (NODE_ENV=production). @default false */
  production?: boolean;
  /** The key a request must give in production (DEBUG_UPSTREAM_KEY); unset by default, and then none sees its calls there. */
  debugUpstreamKey?: string | undefined;
}

const DEFAULTS = defaultSettings();

/** `1` or `dry-run`, and `; key=<key>` where production asks for one. */
const REQUEST = /^\s*(1|dry-run)\s*(?:;\s*key=(\S+)\s*)?$/;

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
 * are never logged. What it shows is the upstream view's (src/observability/upstream-view.ts).
 */
export function useUpstreamDebug({
  production = DEFAULTS.production,
  debugUpstreamKey = DEFAULTS.debugUpstreamKey,
}: UpstreamDebugOptions = {}): Plugin {
  const key = debugUpstreamKey === undefined ? undefined : Buffer.from(debugUpstreamKey);
  const views = new UpstreamViews();
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
      setResult(withUpstream(result, views.next(record)));
    },
    onResultProcess: ({ result, setResult, serverContext }) => {
      const [record] = requestRecords(serverContext);
      if (!record?.debug?.show || !isAsyncIterable(result)) return;
      setResult(mapAsyncIterator(result, (part: ExecutionResult) => withUpstream(part, views.next(record))));
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

/** A result with `extensions.upstream`; an answer from the read cache, whose text is the stored one, gets it in its text. */
function withUpstream<T extends ExecutionResult>(result: T, upstream: ShownUpstream): T {
  const stored = (result as { stringify?: (value: unknown) => string }).stringify;
  if (stored) {
    return { ...result, stringify: (value: unknown) => JSON.stringify({ ...JSON.parse(stored(value)), extensions: { upstream } }) };
  }
  return { ...result, extensions: { ...result.extensions, upstream } };
}
