/** What a request asks of its upstream calls with `X-Debug-Upstream`. */
export interface DebugAsked {
  /** A dry run: its writes are built and never sent. */
  dryRun: boolean;
  /** The value when it is exactly one request to see the calls, `1` or `dry-run` with an optional `; key=<key>`; nothing is shown otherwise. */
  exact: { key: string | undefined } | undefined;
}

/** `1` or `dry-run`, in any case, and an optional `; key=<key>`: the one value that may show the calls. */
const EXACT = /^\s*(?:1|dry-run)\s*(?:;\s*key=([^\s;,]+)\s*)?$/i;

/**
 * The one reader of `X-Debug-Upstream` (repeated lines come joined by commas), failing closed: any
 * value that names `dry-run`, in any case, anywhere in the list, is a dry run, so that no misread
 * value sends a write its caller meant not to send; only a value that is exactly one request may
 * show the calls. Undefined when it asks for nothing.
 */
export function debugUpstreamAsked(header: string | null): DebugAsked | undefined {
  if (header === null) return undefined;
  const dryRun = /dry-run/i.test(header);
  const parsed = EXACT.exec(header);
  const exact = parsed ? { key: parsed[1] } : undefined;
  return dryRun || exact ? { dryRun, exact } : undefined;
}
