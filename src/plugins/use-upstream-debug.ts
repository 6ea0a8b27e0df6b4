import { createHash, timingSafeEqual } from 'node:crypto';
import type { ExecutionResult } from 'graphql';
import { isAsyncIterable, mapAsyncIterator, type Plugin } from 'graphql-yoga';
import { defaultSettings } from '../config/settings.js';
import { debugUpstreamAsked } from '../http/debug-upstream.js';
import { type ShownUpstream, serverTiming, UpstreamViews } from '../observability/upstream-view.js';
import { type OperationRecord, recordOf, requestRecords } from '../operation-record.js';

export interface UpstreamDebugOptions {
  /** Production: a request sees its calls only with DEBUG_UPSTREAM_KEY (NODE_ENV=production). @default false */
  production?: boolean;
  /** The key a request must give in production (DEBUG_UPSTREAM_KEY); unset by default, and then none sees its calls there. */
  debugUpstreamKey?: string | undefined;
}

const DEFAULTS = defaultSettings();

/**
 * What happened upstream, for a request that asks (`X-Debug-Upstream: 1`): its operations' upstream
 * calls, read from their records, in `extensions.upstream` (`calls`, and `cache: 'hit'` for an
 * answer from the read cache, which made none), and a `Server-Timing` header. Outside production a
 * request asks with the header alone; in production only with DEBUG_UPSTREAM_KEY, given in it
 * (`1; key=…`), and a request without it gets nothing and no hint. `dry-run` also keeps every
 * write from being sent: its Caller builds it, keeps it in `extensions.upstream.dryRuns` and fails
 * the field with DRY_RUN; any value that names `dry-run` is a dry run (`debugUpstreamAsked`),
 * shown or not, since sending the write would do what its caller asked not to. An answer in parts shows in each part the calls that finished since the
 * one before. Such answers are never kept in the read cache (useResponseCache) and their contents
 * are never logged. What it shows is the upstream view's (src/observability/upstream-view.ts).
 */
export function useUpstreamDebug({
  production = DEFAULTS.production,
  debugUpstreamKey = DEFAULTS.debugUpstreamKey,
}: UpstreamDebugOptions = {}): Plugin {
  const key = debugUpstreamKey === undefined ? undefined : digest(debugUpstreamKey);
  const views = new UpstreamViews();
  const asked = (header: string | null): OperationRecord['debug'] => {
    const debug = debugUpstreamAsked(header);
    if (!debug) return undefined;
    const given = debug.exact?.key;
    const show =
      debug.exact !== undefined && (!production || (key !== undefined && given !== undefined && timingSafeEqual(key, digest(given))));
    // A dry run asked for is one, seen or not: a write the caller meant not to make is never sent.
    return show || debug.dryRun ? { show, dryRun: debug.dryRun } : undefined;
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

/** A key as it is compared: its SHA-256, the same length whatever was given, compared in constant time, so that a guess learns nothing from how long the answer took. */
const digest = (key: string) => createHash('sha256').update(key).digest();

/** A result with `extensions.upstream`; an answer from the read cache, whose text is the stored one, gets it in its text. */
function withUpstream<T extends ExecutionResult>(result: T, upstream: ShownUpstream): T {
  const stored = (result as { stringify?: (value: unknown) => string }).stringify;
  if (stored) {
    return { ...result, stringify: (value: unknown) => JSON.stringify({ ...JSON.parse(stored(value)), extensions: { upstream } }) };
  }
  return { ...result, extensions: { ...result.extensions, upstream } };
}
