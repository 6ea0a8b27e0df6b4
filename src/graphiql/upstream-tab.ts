import type { ShownCall, ShownUpstream } from '../observability/upstream-view.js';

/*
 * GraphiQL's "Upstream" tab: the REST calls behind the last result, as a waterfall and a list,
 * each with a curl command to copy. It runs in the browser: src/graphiql/assets.ts puts the
 * functions of UPSTREAM_TAB_SCRIPT into GraphiQL's script as source text, side by side, so they
 * call one another by name and use nothing else of this module; React is the one GraphiQL's bundle
 * makes global, and builds the elements without JSX, since nothing here is compiled for a browser.
 */

/** The part of React the tab uses. */
interface ReactApi {
  createElement: CreateElement;
  useEffect(effect: () => () => void, deps: readonly unknown[]): void;
  useState<T>(initial: T): [T, (next: T) => void];
  useSyncExternalStore<T>(subscribe: (listener: () => void) => () => void, snapshot: () => T): T;
}
type CreateElement = (type: unknown, props?: Record<string, unknown> | null, ...children: unknown[]) => unknown;

/** What the tab shows: the last operation the fetcher ran, as far as its answer has arrived. */
export interface UpstreamView {
  /** Counts the operations run: the answer of an older one than the one shown is not shown. */
  run: number;
  /** Its parts' `extensions.upstream`, their calls joined in order; undefined while none had it. */
  upstream: ShownUpstream | undefined;
  /** Parts received: 1 for an answer in one piece. */
  parts: number;
  /** More parts are to come. */
  streaming: boolean;
}

/** The fetcher's side of the tab (src/graphiql/fetcher.ts). */
export interface UpstreamCalls {
  /** Whether the tab is open: the result pane shows the calls only then. */
  readonly open: boolean;
  show(view: UpstreamView): void;
}

/** A REST request that a curl command repeats: a call shown or a dry run's write. */
interface CurlRequest {
  method: string;
  /** Path and query below UPSTREAM_URL. */
  url: string;
  /** The size of the body it sent, if any (ShownCall's). */
  bodyBytes?: number;
  /** That body, where it is shown. */
  body?: unknown;
}

/** The embedded sandbox as the page is given it (src/graphiql/options.ts), when it is the upstream. */
export interface SandboxOnPage {
  /** Its base address, ending in /v2. */
  url: string;
  /** A token it takes. */
  token: string;
}

/**
 * The tab as a GraphiQL plugin, and the fetcher's side of it. GraphiQL mounts a plugin's content
 * only while its tab is open. With the sandbox as the upstream, its commands call the sandbox.
 */
function upstreamTab(
  React: ReactApi,
  sandbox?: SandboxOnPage,
): { calls: UpstreamCalls; plugin: { title: string; icon: unknown; content: unknown } } {
  const h = React.createElement;
  const listeners = new Set<() => void>();
  let shown: UpstreamView | undefined;
  let open = false;
  const calls: UpstreamCalls = {
    get open() {
      return open;
    },
    show(view) {
      if (shown && view.run < shown.run) return;
      shown = view;
      for (const listener of listeners) listener();
    },
  };
  const subscribe = (listener: () => void) => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  };
  function UpstreamPanel() {
    const view = React.useSyncExternalStore(subscribe, () => shown);
    const [curl, setCurl] = React.useState<{ run: number; text: string; copied: boolean } | undefined>(undefined);
    React.useEffect(() => {
      open = true;
      return () => {
        open = false;
      };
    }, []);
    const copy = (request: CurlRequest) => {
      const run = view?.run ?? 0;
      const text = curlCommand(request, sandbox?.url);
      setCurl({ run, text, copied: false });
      // The clipboard exists in secure contexts only (https, localhost): elsewhere the text box is the copy.
      const clipboard = (globalThis as { navigator?: { clipboard?: { writeText(text: string): Promise<void> } } }).navigator?.clipboard;
      clipboard?.writeText(text).then(
        () => setCurl({ run, text, copied: true }),
        () => undefined,
      );
    };
    return h(
      'div',
      { className: 'gateway-upstream' },
      h('div', { className: 'graphiql-doc-explorer-title' }, 'Upstream'),
      ...upstreamContent(h, view, copy, sandbox),
      curl && curl.run === view?.run ? curlBox(h, curl) : null,
    );
  }
  const icon = (props: Record<string, unknown>) =>
    h(
      'svg',
      { ...props, viewBox: '0 0 24 24', fill: 'none', stroke: 'currentColor', strokeWidth: 1.5, strokeLinecap: 'round' },
      h('path', { d: 'M4 6h7M7 12h9M11 18h9' }),
    );
  return { calls, plugin: { title: 'Upstream', icon, content: UpstreamPanel } };
}

/** What the tab shows of a view: a sentence while there are no calls to show, else the calls. */
function upstreamContent(
  h: CreateElement,
  view: UpstreamView | undefined,
  copy: (request: CurlRequest) => void,
  sandbox: SandboxOnPage | undefined,
): unknown[] {
  const note = (text: string) => [h('p', { className: 'gateway-upstream-note' }, text)];
  if (!view) {
    return note(
      'Run an operation: the REST calls behind its result appear here, part by part under @defer and @stream. ' +
        'GraphiQL asks for them with the header X-Debug-Upstream: 1.',
    );
  }
  const { upstream } = view;
  if (!upstream) {
    return note(
      'The gateway showed no calls for this result. In production it shows them only to a request whose ' +
        'X-Debug-Upstream header carries DEBUG_UPSTREAM_KEY: set "X-Debug-Upstream": "1; key=…" in the Headers tab.',
    );
  }
  const total = upstream.calls.reduce((sum, call) => sum + call.durationMs, 0);
  const count = `${upstream.calls.length} ${upstream.calls.length === 1 ? 'call' : 'calls'}`;
  const parts = view.parts > 1 || view.streaming ? `, ${view.parts} ${view.parts === 1 ? 'part' : 'parts'}` : '';
  const summary =
    upstream.cache === 'hit'
      ? 'Answered from the read cache: no REST call was made.'
      : `${count}, ${Math.round(total * 10) / 10} ms upstream${parts}${view.streaming ? ', more to come' : ''}.`;
  const unshownBody = upstream.calls.some((call) => call.bodyBytes !== undefined && call.body === undefined);
  return [
    h('p', { className: 'gateway-upstream-summary' }, summary),
    upstream.calls.length > 0 ? callWaterfall(h, upstream.calls) : null,
    upstream.calls.length > 0 ? callList(h, upstream.calls, copy) : null,
    ...(upstream.dryRuns ?? []).map((request) => dryRunOf(h, request, copy)),
    sandbox
      ? h(
          'p',
          { className: 'gateway-upstream-note' },
          'Commands call the sandbox upstream, on the gateway’s machine, and name the token $TOKEN; the sandbox takes any, so first: ',
          h('code', null, `export TOKEN=${sandbox.token}`),
        )
      : h(
          'p',
          { className: 'gateway-upstream-note' },
          'Commands name the upstream $UPSTREAM_URL and the token $TOKEN: set both in your shell.',
        ),
    unshownBody
      ? h(
          'p',
          { className: 'gateway-upstream-note' },
          'A write whose body is too large to show here sends "$BODY": set BODY to that JSON, ' +
            'which a dry run shows in full ("X-Debug-Upstream": "dry-run" in the Headers tab).',
        )
      : null,
  ];
}

/**
 * One lane per call: its bar starts at its start within the operation and is as long as it took,
 * on one scale for all, read on the time axis below the lanes.
 */
function callWaterfall(h: CreateElement, calls: readonly ShownCall[]): unknown {
  const axis = timeAxis(Math.max(...calls.map((call) => call.startMs + call.durationMs)));
  const percent = (ms: number) => `${Math.round((ms / axis.endMs) * 1000) / 10}%`;
  const lane = (props: Record<string, unknown>, label: string, track: unknown) =>
    h(
      'div',
      { className: 'gateway-upstream-lane', ...props },
      h('span', { className: 'gateway-upstream-lane-label' }, label),
      h('span', { className: 'gateway-upstream-track' }, track),
    );
  return h(
    'div',
    { className: 'gateway-upstream-waterfall' },
    ...calls.map((call, index) =>
      lane(
        { key: index, title: `${call.method} ${call.url}: from ${call.startMs} ms for ${call.durationMs} ms` },
        String(index + 1),
        h('span', {
          className: `gateway-upstream-bar gateway-upstream-${callOutcome(call)}`,
          style: { left: percent(call.startMs), width: `max(2px, ${percent(call.durationMs)})` },
        }),
      ),
    ),
    lane(
      { key: 'axis', className: 'gateway-upstream-lane gateway-upstream-axis', 'aria-hidden': true },
      '',
      axis.ticks.flatMap((ms, index) => [
        h('span', { key: `mark ${ms}`, className: 'gateway-upstream-tick-mark', style: { left: percent(ms) } }),
        h(
          'span',
          {
            key: ms,
            className: 'gateway-upstream-tick',
            // The first label starts at its tick and the last ends at it, so neither leaves the track.
            style: { left: percent(ms), translate: index === 0 ? '0' : index === axis.ticks.length - 1 ? '-100%' : '-50%' },
          },
          `${ms} ms`,
        ),
      ]),
    ),
  );
}

/**
 * The waterfall's scale: from 0 to the first round number of milliseconds at or past `lastMs`
 * (at least 1), in two to five equal steps of 1, 2 or 5 times a power of ten.
 */
export function timeAxis(lastMs: number): { endMs: number; ticks: number[] } {
  const last = Math.max(1, lastMs);
  const power = 10 ** Math.floor(Math.log10(last / 4));
  const step = [1, 2, 5, 10].map((factor) => factor * power).find((size) => size * 4 >= last) ?? 10 * power;
  const steps = Math.max(1, Math.ceil(last / step - 1e-9));
  // Multiples of a step under 1 ms are written as the few digits they have, not as 0.30000000000000004.
  const ticks = Array.from({ length: steps + 1 }, (_, index) => Number((index * step).toPrecision(12)));
  return { endMs: ticks[steps]!, ticks };
}

/** `failed` (no answer, an error status or an error code), `coalesced` (shared with an identical read) or `ok`. */
function callOutcome(call: ShownCall): string {
  if (call.status === null || call.status >= 400 || call.errors.length > 0) return 'failed';
  return call.cache === 'coalesced' ? 'coalesced' : 'ok';
}

/**
 * The calls, one card each: its number (the waterfall's lane), method and URL, then what became of
 * it, each fact named, and the button that copies its curl command. Cards rather than a table's
 * columns, since the tab is as narrow as GraphiQL's sidebar (a quarter of the window at first):
 * every fact wraps into view at any width, none is off to the right.
 */
function callList(h: CreateElement, calls: readonly ShownCall[], copy: (request: CurlRequest) => void): unknown {
  const facts = (call: ShownCall): Array<[string, string]> => [
    ['Status', call.status === null ? 'none' : String(call.status)],
    ['Time', `${call.durationMs} ms`],
    ['Attempt', call.retryReasons.length > 0 ? `${call.attempt} (after ${call.retryReasons.join(', ')})` : String(call.attempt)],
    ['Cache', call.cache],
    ['Paths', call.paths.join(', ')],
    ['Errors', call.errors.length > 0 ? call.errors.join(', ') : 'none'],
    ...(call.bodyBytes === undefined ? [] : [['Body', `${call.bodyBytes} bytes`] as [string, string]]),
  ];
  return h(
    'ol',
    { className: 'gateway-upstream-calls' },
    ...calls.map((call, index) =>
      h(
        'li',
        { key: index, className: `gateway-upstream-call gateway-upstream-${callOutcome(call)}` },
        h(
          'div',
          { className: 'gateway-upstream-call-request' },
          h('span', { className: 'gateway-upstream-call-number' }, String(index + 1)),
          h('span', { className: 'gateway-upstream-call-method' }, call.method),
          h('span', { className: 'gateway-upstream-call-url' }, call.url),
        ),
        h(
          'dl',
          { className: 'gateway-upstream-call-facts' },
          ...facts(call).map(([name, value]) => h('div', { key: name }, h('dt', null, name), h('dd', null, value))),
          h('button', { type: 'button', onClick: () => copy(call) }, 'Copy as curl'),
        ),
      ),
    ),
  );
}

/** The write a dry run built and did not send, with its body. */
function dryRunOf(h: CreateElement, request: NonNullable<ShownUpstream['dryRuns']>[number], copy: (request: CurlRequest) => void): unknown {
  return h(
    'div',
    { className: 'gateway-upstream-dry-run' },
    h('p', null, `Dry run: ${request.method} ${request.path} was built, not sent.`),
    h('pre', null, JSON.stringify(request.body, null, 2)),
    h('button', { type: 'button', onClick: () => copy({ method: request.method, url: request.path, body: request.body }) }, 'Copy as curl'),
  );
}

/** The command last copied, in a box to select it from where the browser has no clipboard for the page. */
function curlBox(h: CreateElement, curl: { text: string; copied: boolean }): unknown {
  return h(
    'div',
    { className: 'gateway-upstream-curl' },
    h('textarea', { readOnly: true, value: curl.text, rows: 4, 'aria-label': 'curl command' }),
    h('p', { className: 'gateway-upstream-note' }, curl.copied ? 'Copied to the clipboard.' : 'Select it and copy it.'),
  );
}

/**
 * A curl command that repeats a REST request, for a shell where $UPSTREAM_URL is the upstream's
 * address (UPSTREAM_URL) and $TOKEN the caller's bearer token: the gateway shows neither, and the
 * Headers tab's Authorization is never copied. `sandboxUrl`, the embedded sandbox's address when it
 * is the upstream, is written in place of $UPSTREAM_URL. A write sends its body, or `$BODY` where
 * the body was too large to show.
 */
export function curlCommand(request: CurlRequest, sandboxUrl?: string): string {
  const quoted = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
  const words = ['curl'];
  if (request.method !== 'GET') words.push('-X', request.method);
  // A redacted query value is written `[redacted]`, which curl would read as a range.
  if (/[[\]{}]/.test(request.url)) words.push('--globoff');
  const url = sandboxUrl === undefined ? `"$UPSTREAM_URL"${quoted(request.url)}` : quoted(sandboxUrl.replace(/\/+$/, '') + request.url);
  words.push(url, '-H', '"Authorization: Bearer $TOKEN"');
  const body = request.body !== undefined ? quoted(JSON.stringify(request.body)) : request.bodyBytes !== undefined ? '"$BODY"' : '';
  if (body) words.push('-H', quoted('Content-Type: application/json'), '--data-raw', body);
  return words.join(' ');
}

/** The tab's functions, in the order GraphiQL's script holds them. */
export const UPSTREAM_TAB_SCRIPT = [
  upstreamTab,
  upstreamContent,
  callWaterfall,
  timeAxis,
  callOutcome,
  callList,
  dryRunOf,
  curlBox,
  curlCommand,
];

/**
 * The tab's look, added to GraphiQL's stylesheet; colours and sizes are GraphiQL's own, so its
 * themes apply. With it, the header above the editors keeps its tabs whole: the logo's name gives
 * way first (cut short, down to the icon), since the sidebar open beside them leaves less room.
 */
export const UPSTREAM_TAB_STYLE = `
.graphiql-session-header .graphiql-logo { flex: 1 1 0; min-width: 40px; display: flex; justify-content: flex-end; overflow: hidden; }
.graphiql-session-header .graphiql-logo > div { min-width: 0; }
.graphiql-session-header .graphiql-logo span { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.gateway-upstream { display: flex; flex-direction: column; gap: var(--px-12); font-size: var(--font-size-hint); }
.gateway-upstream p { margin: 0; }
.gateway-upstream-note, .gateway-upstream-lane-label, .gateway-upstream-tick, .gateway-upstream-call-number, .gateway-upstream-call-facts dt { color: hsla(var(--color-neutral), var(--alpha-secondary)); }
.gateway-upstream-waterfall { display: flex; flex-direction: column; gap: var(--px-4); }
.gateway-upstream-lane { display: flex; align-items: center; gap: var(--px-8); }
.gateway-upstream-lane-label, .gateway-upstream-call-number { flex: none; width: 2em; text-align: right; }
.gateway-upstream-track { position: relative; flex: 1; height: var(--px-12); background: hsla(var(--color-neutral), var(--alpha-background-light)); border-radius: var(--border-radius-2); }
.gateway-upstream-bar { position: absolute; top: 0; bottom: 0; border-radius: var(--border-radius-2); background: hsl(var(--color-primary)); }
.gateway-upstream-bar.gateway-upstream-coalesced { background: hsl(var(--color-tertiary)); }
.gateway-upstream-bar.gateway-upstream-failed { background: hsl(var(--color-error)); }
.gateway-upstream-axis .gateway-upstream-track { height: 1.5em; background: none; border-radius: 0; border-top: 1px solid hsla(var(--color-neutral), var(--alpha-background-heavy)); }
.gateway-upstream-tick { position: absolute; top: var(--px-4); white-space: nowrap; font-variant-numeric: tabular-nums; }
.gateway-upstream-tick-mark { position: absolute; top: 0; height: var(--px-4); border-left: 1px solid hsla(var(--color-neutral), var(--alpha-tertiary)); }
.gateway-upstream-calls { list-style: none; margin: 0; padding: 0; }
.gateway-upstream-call { display: flex; flex-direction: column; gap: var(--px-2); padding: var(--px-6) 0; border-bottom: 1px solid hsla(var(--color-neutral), var(--alpha-background-heavy)); }
.gateway-upstream-call-request { display: flex; gap: var(--px-8); font-family: var(--font-family-mono); }
.gateway-upstream-call-method { flex: none; }
.gateway-upstream-call-url { min-width: 0; overflow-wrap: anywhere; }
.gateway-upstream-call-facts { display: flex; flex-wrap: wrap; align-items: baseline; gap: var(--px-2) var(--px-12); margin: 0; padding-left: calc(2em + var(--px-8)); }
.gateway-upstream-call-facts > div { display: flex; gap: var(--px-4); min-width: 0; }
.gateway-upstream-call-facts dd { margin: 0; font-family: var(--font-family-mono); overflow-wrap: anywhere; }
.gateway-upstream-call.gateway-upstream-failed :is(.gateway-upstream-call-request, dd) { color: hsl(var(--color-error)); }
.gateway-upstream button { font: inherit; cursor: pointer; color: hsl(var(--color-primary)); background: none; border: 1px solid currentColor; border-radius: var(--border-radius-4); padding: 0 var(--px-4); }
.gateway-upstream pre, .gateway-upstream textarea { margin: 0; font-family: var(--font-family-mono); font-size: var(--font-size-hint); }
.gateway-upstream textarea { width: 100%; box-sizing: border-box; resize: vertical; color: inherit; background: hsla(var(--color-neutral), var(--alpha-background-light)); border: none; padding: var(--px-6); }
`;
