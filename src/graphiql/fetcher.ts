import type { meros } from 'meros/browser';
import type { ShownUpstream } from '../observability/upstream-view.js';
import type { UpstreamCalls } from './upstream-tab.js';

/*
 * It runs in the browser: src/graphiql/assets.ts puts the functions of FETCHER_SCRIPT into
 * GraphiQL's script as source text, side by side, so they call one another by name and use nothing
 * else of this module; meros, which reads an answer in parts, is handed in the same way.
 */

/** What GraphiQL hands a fetcher: the operation, and the Headers tab. */
interface FetcherParams {
  query: string;
  variables?: unknown;
  operationName?: string | null;
}
interface FetcherOptions {
  headers?: Record<string, string>;
}

/** A result, or a part of one, as far as the fetcher reads it. */
interface Result {
  extensions?: { upstream?: ShownUpstream };
  hasNext?: boolean;
}

/** What the fetcher throws: GraphiQL prints a plain object as its message, never with a stack trace. */
function fail(message: string): { message: string } {
  return { message };
}

/**
 * GraphiQL's fetcher, in place of the one Yoga's GraphiQL builds. That one throws JavaScript
 * errors, and GraphiQL prints a thrown Error with its minified stack trace in the result pane
 * (renaming a tab's operation and pressing Run at once showed "Cannot infer operation …" and a
 * stack). This one throws only plain objects, which GraphiQL prints as their message, each a
 * sentence that says what to do; and an operation name the text no longer holds (the old name
 * right after a rename or a tab switch, when GraphiQL's parsed document is as stale as the name) is
 * dropped when the text names one operation at most, so the server runs the one it has.
 *
 * It takes an answer in parts (`multipart/mixed`, for `@defer` and `@stream`) as well as JSON, and
 * hands GraphiQL the parts as they arrive. It sends `X-Debug-Upstream: 1` with each operation
 * (unless the Headers tab sets that header itself), and shows the Upstream tab the calls of every
 * result, part by part, whether the tab is open or opened later: a result run first and looked
 * into after shows its calls too. The result pane shows them while the tab is open; closed, it
 * shows the answer as an app gets it.
 */
export function graphiqlFetcher(endpoint: string, readParts: typeof meros, tab: UpstreamCalls) {
  let runs = 0;
  return async (params: FetcherParams, options: FetcherOptions = {}): Promise<unknown> => {
    // GraphiQL's own schema fetch is no result of the tab's, and asks for no calls.
    const run = params.operationName === 'IntrospectionQuery' ? undefined : ++runs;
    const headers: Record<string, string> = {
      accept: 'application/graphql-response+json, application/json, multipart/mixed',
      'content-type': 'application/json',
      ...options.headers,
    };
    const given = Object.keys(headers).some((name) => name.toLowerCase() === 'x-debug-upstream');
    if (run !== undefined && !given) headers['x-debug-upstream'] = '1';
    const upstream = upstreamOf(tab, run, given);
    const body = JSON.stringify({ query: params.query, variables: params.variables, operationName: operationNameIn(params) });
    const stop = new AbortController();
    let response: Response;
    try {
      response = await fetch(endpoint, { method: 'POST', headers, body, signal: stop.signal });
    } catch {
      throw fail('The gateway could not be reached: check that it is running and reachable, then press Run again.');
    }
    const type = response.headers.get('content-type') ?? '';
    const parts = /^multipart\/mixed/i.test(type) ? await readParts<Result>(response) : response;
    if (!(parts instanceof Response)) return resultParts(parts, stop, upstream);
    if (!/json/i.test(type)) throw fail(`The gateway answered HTTP ${response.status} without a GraphQL result.`);
    return upstream((await response.json()) as Result);
  };
}

/** The operation name to send: GraphiQL's, unless the text no longer holds it and names one operation at most. */
function operationNameIn(params: FetcherParams): string | undefined {
  const operationName = params.operationName ?? undefined;
  if (operationName === undefined) return undefined;
  // The names the text gives its operations, with comments and strings left out.
  const text = params.query.replace(/"""[\s\S]*?"""|"(?:[^"\\\n]|\\.)*"|#[^\n]*/g, ' ');
  const names = [...text.matchAll(/\b(?:query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]*)/g)].map((match) => match[1]);
  if (names.includes(operationName)) return operationName;
  if (names.length > 1) {
    throw fail(`The document has no operation named "${operationName}": choose the one to run with the arrow beside the Run button.`);
  }
  return undefined;
}

/**
 * Shows the tab each result, or part, of one run as it arrives, its calls added to those of the
 * parts before. The part itself then holds them all (GraphiQL merges the parts' extensions key by
 * key, and would show the calls of the last part alone), or, while the tab is closed, none: unless
 * the Headers tab asked for them itself (`given`), the result pane then shows what an app gets.
 */
function upstreamOf(tab: UpstreamCalls, run: number | undefined, given: boolean) {
  let upstream: ShownUpstream | undefined;
  let parts = 0;
  return <T extends Result>(result: T): T => {
    if (run === undefined) return result;
    parts += 1;
    const part = result.extensions?.upstream;
    if (part) upstream = { ...upstream, ...part, calls: [...(upstream?.calls ?? []), ...part.calls] };
    tab.show({ run, upstream, parts, streaming: result.hasNext === true });
    if (!part) return result;
    const { upstream: _, ...others } = result.extensions!;
    const shown = tab.open || given ? { ...others, upstream } : others;
    if (Object.keys(shown).length > 0) result.extensions = shown;
    else delete result.extensions;
    return result;
  };
}

/**
 * The parts of an answer as GraphiQL reads them, each as soon as it has arrived. GraphiQL stops
 * listening (its Stop button) by ending the iteration, which ends the request too.
 */
function resultParts(
  parts: AsyncIterable<{ json: boolean; body: unknown }>,
  stop: AbortController,
  upstream: <T extends Result>(result: T) => T,
) {
  const received = (async function* () {
    try {
      for await (const part of parts) {
        if (!part.json) throw fail('The gateway sent a part that is not JSON: press Run again.');
        yield upstream(part.body as Result);
      }
    } catch (error) {
      if (stop.signal.aborted) return;
      throw error instanceof Error ? fail('The answer broke off before its last part: press Run again.') : error;
    }
  })();
  const close = received.return.bind(received);
  received.return = (value) => {
    stop.abort();
    return close(value);
  };
  return received;
}

/** The fetcher's functions, in the order GraphiQL's script holds them: `graphiqlFetcher(endpoint, meros, tab)` makes the fetcher. */
export const FETCHER_SCRIPT = [fail, graphiqlFetcher, operationNameIn, upstreamOf, resultParts];
