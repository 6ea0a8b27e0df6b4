import { NO_STORE } from './cache-control.js';
import { isSendableValue } from './forwarded-headers.js';

/** One answer's headers as received: names in lower case, a list where the header came more than once. */
export type ReceivedHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/** The `link` values of a merged answer together, at most: a union of many calls' links stays a header a proxy takes. */
const MAX_LINK_BYTES = 4096;

/** Headers that pair a limit with what is left of it: the limit given back is the one of the answer with the least left. */
const LIMIT_OF: Readonly<Record<string, string>> = {
  'ratelimit-limit': 'ratelimit-remaining',
  'x-ratelimit-limit': 'x-ratelimit-remaining',
};

/**
 * How each header is merged across the answers of the calls of one request, by its meaning, into
 * one value; a header not here takes the value of the first answer that has one, in the order
 * the calls were made (never the first to finish).
 */
const MERGES: Readonly<
  Record<string, (values: readonly string[], sources: readonly ReceivedHeaders[], now: number) => string | undefined>
> = {
  'ratelimit-remaining': (values) => least(values),
  'x-ratelimit-remaining': (values) => least(values),
  'ratelimit-limit': (_values, sources) => limitWithLeast(sources, 'ratelimit-limit'),
  'x-ratelimit-limit': (_values, sources) => limitWithLeast(sources, 'x-ratelimit-limit'),
  'ratelimit-reset': (values, _sources, now) => longestWait(values, now),
  'x-ratelimit-reset': (values, _sources, now) => longestWait(values, now),
  'retry-after': (values, _sources, now) => longestWait(values, now),
  'cache-control': (_values, sources) => mostRestrictive(sources),
  deprecation: (values) => earliest(values),
  sunset: (values) => earliest(values),
  link: (values) => linkUnion(values),
};

/** The headers by which an answer tells of deprecations: the REST API's own and those the gateway gives of deprecated schema elements. */
export const NOTICE_HEADERS = ['deprecation', 'sunset', 'link'] as const;

/**
 * `headers` with the deprecation notices of `notices` merged in (`NOTICE_HEADERS`, by `MERGES`):
 * the gateway's own notices, which go out whatever RETURN_HEADERS lists, met with the REST API's
 * of the same name. Kept apart from the merge of the REST API's headers, where a source without
 * `Cache-Control` would make the answer `no-store`.
 */
export function withNotices(headers: Readonly<Record<string, string>>, notices: readonly ReceivedHeaders[]): Record<string, string> {
  return notices.length === 0 ? { ...headers } : { ...headers, ...mergedHeaders([headers, ...notices], NOTICE_HEADERS) };
}

/**
 * The `names` headers (lower case) of one answer made of several upstream answers (`sources`, in
 * the order the calls were made), each one value merged by its meaning (`MERGES`): the least of
 * what is left of a rate limit with its own limit, the longest wait, the most restrictive caching,
 * the earliest deprecation and sunset, every link once. Values that could not be sent on (control
 * characters, over 1 KiB) are left out, and a header no source has is not there.
 */
export function mergedHeaders(sources: readonly ReceivedHeaders[], names: readonly string[], now = Date.now()): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const name of names) {
    const values = sources.flatMap((source) => valuesOf(source, name));
    // Caching is merged from every answer, one without the header included (it may not be kept); the rest from those that have it.
    if (values.length === 0 && (name !== 'cache-control' || sources.length === 0)) continue;
    const merge = MERGES[name];
    const value = merge ? merge(values, sources, now) : values[0];
    if (value !== undefined) merged[name] = value;
  }
  return merged;
}

/** The longest wait and the longest lifetime passed on, in seconds: a day. An upstream's year-9999 date or ten-digit max-age is read as this. */
const MAX_SECONDS = 86_400;

/**
 * A value that can be passed on as it came: sendable (`isSendableValue`) and in visible ASCII. A byte
 * at or above 0x80 (obs-text) has no agreed encoding: passed on, it came out re-encoded.
 */
const readable = (value: string) => isSendableValue(value) && /^[\t\x20-\x7e]*$/.test(value);

function valuesOf(source: ReceivedHeaders, name: string): string[] {
  const value = source[name];
  const values = value === undefined ? [] : typeof value === 'string' ? [value] : [...value];
  return values.filter(readable);
}

/** A whole number of at most 15 digits (seconds or counts), or undefined. */
function count(value: string): number | undefined {
  return /^\d{1,15}$/.test(value.trim()) ? Number(value.trim()) : undefined;
}

function least(values: readonly string[]): string | undefined {
  const counts = values.map(count).filter((n) => n !== undefined);
  return counts.length === 0 ? undefined : String(Math.min(...counts));
}

function limitWithLeast(sources: readonly ReceivedHeaders[], limitName: string): string | undefined {
  const remainingName = LIMIT_OF[limitName]!;
  let chosen: { left: number; limit: string } | undefined;
  for (const source of sources) {
    const [limit] = valuesOf(source, limitName);
    const left = count(valuesOf(source, remainingName)[0] ?? '');
    // A limit that is no count (`NaN`, `1e309`) is no limit to pass on.
    if (limit === undefined || count(limit) === undefined) continue;
    if (!chosen || (left !== undefined && left < chosen.left)) chosen = { left: left ?? Number.POSITIVE_INFINITY, limit: limit.trim() };
  }
  return chosen?.limit;
}

/** An HTTP-date as RFC 9110 (5.6.7) has senders write it, IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`. */
const HTTP_DATE =
  /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/** An HTTP-date in ms, or undefined for anything else: `Date.parse` alone read `Z 1` as a date. */
function httpDate(value: string): number | undefined {
  const trimmed = value.trim();
  const at = HTTP_DATE.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  return Number.isNaN(at) ? undefined : at;
}

/** Seconds to wait, at most a day: delta-seconds as given, an HTTP-date as the seconds from `now` until it (0 once past). */
function secondsToWait(value: string, now: number): number | undefined {
  const seconds = count(value);
  const at = seconds === undefined ? httpDate(value) : undefined;
  const wait = seconds ?? (at === undefined ? undefined : Math.max(0, Math.ceil((at - now) / 1000)));
  return wait === undefined ? undefined : Math.min(wait, MAX_SECONDS);
}

function longestWait(values: readonly string[], now: number): string | undefined {
  const waits = values.map((value) => secondsToWait(value, now)).filter((n) => n !== undefined);
  return waits.length === 0 ? undefined : String(Math.max(...waits));
}

/** A date of `Deprecation` (RFC 9745: `@` and seconds since the epoch) or `Sunset` (RFC 8594: an HTTP-date), in ms. */
function dateOf(value: string): number | undefined {
  const epoch = /^@(-?\d{1,15})$/.exec(value.trim());
  return epoch ? Number(epoch[1]) * 1000 : httpDate(value);
}

function earliest(values: readonly string[]): string | undefined {
  let chosen: { at: number; value: string } | undefined;
  for (const value of values) {
    const at = dateOf(value);
    if (at !== undefined && (!chosen || at < chosen.at)) chosen = { at, value: value.trim() };
  }
  return chosen?.value;
}

/**
 * The most restrictive caching of all the answers: `no-store` if any says it (or says nothing, so
 * may not be kept), else the shortest `max-age`, `no-cache` if any says it. `private` always: an
 * answer of the gateway is its caller's alone.
 */
function mostRestrictive(sources: readonly ReceivedHeaders[]): string {
  let maxAge = Number.POSITIVE_INFINITY;
  let noCache = false;
  for (const source of sources) {
    const directives = valuesOf(source, 'cache-control')
      .flatMap((value) => value.split(','))
      .map((directive) => directive.trim().toLowerCase());
    const age = directives.map((directive) => /^max-age=(\d{1,10})$/.exec(directive)?.[1]).find((seconds) => seconds !== undefined);
    if (directives.includes('no-store') || age === undefined) return NO_STORE;
    noCache ||= directives.includes('no-cache');
    maxAge = Math.min(maxAge, Number(age));
  }
  if (sources.length === 0) return NO_STORE;
  maxAge = Math.min(maxAge, MAX_SECONDS);
  return noCache ? `private, no-cache, max-age=${maxAge}` : `private, max-age=${maxAge}`;
}

/** Each link of every answer once (RFC 8288 link-values, split on the commas between them), within MAX_LINK_BYTES. */
function linkUnion(values: readonly string[]): string | undefined {
  const links: string[] = [];
  let bytes = 0;
  for (const value of values) {
    for (const link of value.split(/,(?=\s*<)/).map((part) => part.trim())) {
      if (link === '' || links.includes(link) || bytes + link.length + 2 > MAX_LINK_BYTES) continue;
      links.push(link);
      bytes += link.length + 2;
    }
  }
  return links.length === 0 ? undefined : links.join(', ');
}

/**
 * Headers kept with an answer, given again `ageSeconds` after they were kept: their `max-age` less
 * that age (never below 0), as a cache that answers for the origin must (RFC 9111, 4.2.3).
 */
export function aged(headers: Readonly<Record<string, string>>, ageSeconds: number): Record<string, string> {
  const cacheControl = headers['cache-control'];
  if (cacheControl === undefined || ageSeconds <= 0) return { ...headers };
  const left = cacheControl.replace(
    /\bmax-age=(\d{1,10})\b/,
    (_, seconds: string) => `max-age=${Math.max(0, Number(seconds) - ageSeconds)}`,
  );
  return { ...headers, 'cache-control': left };
}
