import { z } from 'zod';

/**
 * Parsers of environment variable text. Each message completes "NAME ...", and each parser's
 * `description` is what docs/configuration.md shows as the accepted values.
 */

/** A whole number from min to max; `what` names it in the message, e.g. "a port number". */
export const wholeNumber = (min: number, max: number, what = 'a whole number') => {
  const message = `must be ${what} from ${min} to ${max}`;
  return z
    .string()
    .regex(/^\d+$/, message)
    .transform(Number)
    .refine((n) => n >= min && n <= max, message)
    .describe(`${min}–${max}`);
};

export const milliseconds = (min: number, max: number) => wholeNumber(min, max, 'a whole number of milliseconds');
export const bytes = (min: number, max: number) => wholeNumber(min, max, 'a whole number of bytes');

/** true or false. */
export const flag = z
  .enum(['true', 'false'], 'must be true or false')
  .transform((v) => v === 'true')
  .describe('`true`, `false`');

/** Any text (an empty value is refused for every setting, by loadSettings). */
export const text = (what: string) => z.string().describe(what);

/** A source revision, as a build names it (a git commit, a tag): a metric label's value, so short and plain. */
export const revision = z
  .string()
  .regex(/^[\w.+-]{1,64}$/, 'must be 1 to 64 letters, digits and . _ + -, such as a git commit')
  .describe('1–64 letters, digits and `. _ + -`');

/** One of a fixed set of words. */
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, `must be one of ${values.join(', ')}`).describe(values.map((v) => `\`${v}\``).join(', '));

/** An http(s) URL. */
export const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).describe('http(s) URL');

/** The value as an http(s) URL, or undefined. */
export function httpUrlOf(value: string): URL | undefined {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** The upstream's base address: http(s), path ending in /v2, no query, fragment or credentials. */
export const upstreamBaseUrl = z
  .string()
  .refine((value) => {
    const url = httpUrlOf(value);
    return url !== undefined && /\/v2\/?$/.test(url.pathname) && !url.search && !url.hash;
  }, 'must be an http(s) URL whose path ends in /v2, without query or fragment')
  // undici would drop them without a word: every call carries the caller's bearer token instead.
  .refine((value) => {
    const url = httpUrlOf(value);
    return url !== undefined && url.username === '' && url.password === '';
  }, 'must not hold a user or password: the gateway sends each caller’s own bearer token')
  .transform((value) => new URL(value.replace(/\/+$/, '')))
  .describe('http(s) URL ending in `/v2`');

/** Any origin may call: only when CORS_ORIGINS says `*`, or by default outside production. */
export const ANY_ORIGIN = '*';

/** True for a host name that can only mean this machine. */
export function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

// URL parsing takes `*` in a host name: only patternBase may read one.
const isOrigin = (value: string) => !value.includes('*') && httpUrlOf(value)?.origin === value;

/** `https://*.example.com`: any subdomain of example.com, at any depth, on that scheme and port. */
const SUBDOMAIN_PATTERN = /^(https?:\/\/)\*\.(.+)$/;

/** An origin pattern's fixed part (`https://example.com`), or undefined when `value` is not a pattern. */
export function patternBase(value: string): string | undefined {
  const match = SUBDOMAIN_PATTERN.exec(value);
  if (!match) return undefined;
  const base = `${match[1]}${match[2]}`;
  const url = httpUrlOf(base);
  // Under a registrable name only: `https://*.com` would let anyone in.
  return url?.origin === base && url.hostname.includes('.') && !/^[\d.]+$|^\[/.test(url.hostname) ? base : undefined;
}

/** The entries of a comma-separated value, trimmed, empty ones dropped. */
const commaSeparated = (value: string) =>
  value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');

/** A comma-separated list of origins such as `https://app.example.com`, patterns such as `https://*.example.com`, or `*`. */
export const originList = z
  .string()
  .transform(commaSeparated)
  .refine(
    (origins) => origins.every((origin) => origin === ANY_ORIGIN || isOrigin(origin) || patternBase(origin) !== undefined),
    'must be * or a comma-separated list of origins such as https://app.example.com (scheme, host and port only, no path), or patterns such as https://*.example.com',
  )
  .describe('`*`, or origins and `https://*.example.com` patterns separated by commas');

/** Comma-separated file or folder paths, e.g. `manifests/web.json,manifests/admin.json` or `manifests/`. */
export const pathList = z
  .string()
  .transform(commaSeparated)
  .refine((paths) => paths.length > 0, 'must name at least one file or folder')
  .describe('file and folder paths, separated by commas');

/** A comma-separated list of client names such as `web-app, admin-console`. */
export const nameList = z
  .string()
  .transform(commaSeparated)
  .refine((names) => names.every((name) => CLIENT_NAME.test(name)), 'must be names of letters, digits and . _ - / @, separated by commas')
  .describe('names separated by commas');

/**
 * The longest name a caller chooses (its app's name and version, its operations' names) that logs,
 * traces and metrics record as given; a longer one, or one of other characters, is recorded as
 * `other`. Callers send what they like, so this is what keeps a 300 KB name out of a log line.
 */
export const MAX_NAME_LENGTH = 64;

/** What a client name or version may look like to be shown at all: a plain short token. */
export const CLIENT_NAME = new RegExp(`^[A-Za-z0-9._@/-]{1,${MAX_NAME_LENGTH}}$`);

/**
 * A Redis address: `redis://` or `rediss://` (TLS), a host, an optional user and password and an
 * optional database number as the path (`rediss://:secret@cache.internal:6380/2`). Its password is
 * never shown: not in an error, a log line or docs/configuration.md.
 */
export const redisUrl = z
  .string()
  .refine((value) => {
    try {
      const url = new URL(value);
      return (
        (url.protocol === 'redis:' || url.protocol === 'rediss:') &&
        url.hostname !== '' &&
        /^(\/\d{0,2})?$/.test(url.pathname) &&
        !url.search &&
        !url.hash
      );
    } catch {
      return false;
    }
  }, 'must be a redis:// or rediss:// URL with a host, and at most a database number as its path')
  .transform((value) => new URL(value))
  .describe('`redis://` or `rediss://` URL, user, password and database optional');

/** A Redis node's or a Sentinel's address. */
interface RedisAddress {
  host: string;
  port: number;
}

/** `host:port` as a RedisAddress (an IPv6 host in brackets, `[fd00::1]:6379`), or undefined. */
function redisAddressOf(entry: string): RedisAddress | undefined {
  if (!/^[^/?#@]+:\d{1,5}$/.test(entry)) return undefined;
  try {
    const url = new URL(`redis://${entry}`);
    const port = Number(url.port);
    if (url.hostname === '' || port < 1 || port > 65535) return undefined;
    return { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port };
  } catch {
    return undefined;
  }
}

/** The most addresses a list may name: a Redis Cluster's seeds or a deployment's Sentinels are a handful. */
const MAX_REDIS_ADDRESSES = 64;

/** Comma-separated `host:port` addresses, e.g. `sentinel-0.redis:26379,sentinel-1.redis:26379`. */
export const redisAddressList = z
  .string()
  .transform(commaSeparated)
  .refine(
    (entries) => entries.length >= 1 && entries.length <= MAX_REDIS_ADDRESSES && entries.every((entry) => redisAddressOf(entry)),
    `must be 1 to ${MAX_REDIS_ADDRESSES} host:port addresses separated by commas, such as redis-0.redis:6379,redis-1.redis:6379`,
  )
  .transform((entries) => entries.map((entry) => redisAddressOf(entry)!))
  .describe(`1–${MAX_REDIS_ADDRESSES} \`host:port\` addresses, separated by commas`);

/** The name Sentinels monitor a primary under (`sentinel monitor <name> …`), e.g. `mymaster`. */
export const sentinelMasterName = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1 to 64 letters, digits and . _ -')
  .describe('1–64 of `A-Z a-z 0-9 . _ -`');

/**
 * Marks a parser's values as secret: never shown, not in an error, a log line, docs/configuration.md
 * or what `--check-config` prints (`shownSettings`). `description` lists the accepted values.
 */
const secretValue = <T extends z.ZodType>(parser: T, description: string) => parser.meta({ description, secret: true });

/** Whether a setting's parser reads a secret (`secretValue`). */
export const isSecret = (parser: z.ZodType): boolean => parser.meta()?.secret === true;

/** A password: any text, never shown, not in an error, a log line or docs/configuration.md. */
export const password = secretValue(z.string().max(1024, 'must be at most 1024 characters long'), 'text of up to 1024 characters');

/** A prefix for every key the gateway writes, e.g. `vms-gateway:`. */
export const keyPrefix = z
  .string()
  .regex(/^[A-Za-z0-9:._-]{1,64}$/, 'must be 1 to 64 letters, digits and : . _ -')
  .describe('1–64 of `A-Z a-z 0-9 : . _ -`');

/** A `User-Agent` value (RFC 9110 §10.1.5), such as `vms-graphql-gateway/0.1.0 (team-a)`: plain and short, for every call. */
export const userAgent = z
  .string()
  .regex(
    /^[\x21-\x7e](?:[\x20-\x7e]{0,254}[\x21-\x7e])?$/,
    'must be 1 to 256 visible ASCII characters and spaces, such as vms-graphql-gateway/0.1.0',
  )
  .describe('1–256 visible ASCII characters and spaces');

/** A shared secret of at least 16 characters a header can carry: never shown, in an error, a log line or docs/configuration.md. */
export const secret = secretValue(
  z.string().regex(/^[A-Za-z0-9._~+/=-]{16,256}$/, 'must be 16 to 256 letters, digits and . _ ~ + / = -'),
  '16–256 of `A-Z a-z 0-9 . _ ~ + / = -`',
);

/** A length of time in whole seconds, written in milliseconds (`60000`): what a counter's window can be. */
export const wholeSeconds = (min: number, max: number) =>
  milliseconds(min, max).refine((ms) => ms % 1000 === 0, 'must be a whole number of seconds, written in milliseconds (60000 for a minute)');

/** RFC 9110's `token`, the characters a header name may hold. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Headers no list of FORWARD_HEADERS or RETURN_HEADERS may name: the connection's own (hop by hop,
 * RFC 9110 §7.6.1, and the framing of a message), which only the side that made the connection may
 * set; the credential, which the bearer forwarding owns; and cookies, which the contract (bearer
 * only) never carries.
 */
const UNLISTED_HEADERS: Readonly<Record<string, string>> = {
  connection: 'a hop-by-hop header',
  'keep-alive': 'a hop-by-hop header',
  'proxy-connection': 'a hop-by-hop header',
  'proxy-authenticate': 'a hop-by-hop header',
  'proxy-authorization': 'a hop-by-hop header',
  host: 'the connection’s own',
  'content-length': 'the connection’s own',
  'transfer-encoding': 'a hop-by-hop header',
  te: 'a hop-by-hop header',
  trailer: 'a hop-by-hop header',
  upgrade: 'a hop-by-hop header',
  expect: 'the connection’s own',
  authorization: 'which the bearer forwarding owns',
  cookie: 'which the bearer-only contract never carries',
  'set-cookie': 'which the bearer-only contract never carries',
};

/**
 * Answer headers the gateway writes itself, which RETURN_HEADERS may not name: an upstream's value
 * would replace the gateway's own (its media type, its encoding, CORS, its security headers, its
 * request id).
 */
const GATEWAY_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'the gateway’s own',
  'content-encoding': 'the gateway’s own',
  vary: 'the gateway’s own',
  'x-request-id': 'the gateway’s own',
  'x-content-type-options': 'one of the gateway’s security headers',
  'content-security-policy': 'one of the gateway’s security headers',
  'x-frame-options': 'one of the gateway’s security headers',
  'referrer-policy': 'one of the gateway’s security headers',
  'strict-transport-security': 'one of the gateway’s security headers',
};

const TRACE = 'a trace header: only the gateway’s own trace context goes upstream';
const CLIENT_ADDRESS = 'which would tell the upstream a client address the gateway never checked';
const METHOD = 'which would change the method of the call';

/**
 * Request headers FORWARD_HEADERS may not name, as the client's header or as its upstream name:
 * those the gateway sets on every call itself (src/upstream/http-request.ts, and `traceparent`),
 * those that describe the call's own body and answer, and those that would make the upstream act on
 * what the gateway does not vouch for: another method, a client address, a caller's trace context
 * (docs/security.md), the debug key. test/http/upstream-headers.test.ts checks that every header a
 * call sends is here.
 */
const GATEWAY_REQUEST_HEADERS: Readonly<Record<string, string>> = {
  accept: 'which the gateway sets on every call',
  'content-type': 'which the gateway sets on every call',
  'x-request-id': 'which the gateway sets on every call',
  'user-agent': 'which the gateway sets on every call',
  'content-encoding': 'which describes the body the gateway sends',
  'accept-encoding': 'which says what answers the gateway can read',
  'x-http-method-override': METHOD,
  'x-http-method': METHOD,
  'x-method-override': METHOD,
  forwarded: CLIENT_ADDRESS,
  'x-forwarded-for': CLIENT_ADDRESS,
  'x-forwarded-host': CLIENT_ADDRESS,
  'x-forwarded-proto': CLIENT_ADDRESS,
  'x-real-ip': CLIENT_ADDRESS,
  traceparent: TRACE,
  tracestate: TRACE,
  baggage: TRACE,
  'x-debug-upstream': 'which carries DEBUG_UPSTREAM_KEY',
};

/** Why a header may not be listed (completing "… may not name"), or undefined when it may. */
function refusedHeader(name: string, refused: Readonly<Record<string, string>>): string | undefined {
  if (!HEADER_NAME.test(name)) return `"${name}", which is not a header name`;
  if (name.startsWith('access-control-')) return `${name}, the gateway’s own (CORS)`;
  const why = refused[name] ?? UNLISTED_HEADERS[name];
  return why === undefined ? undefined : `${name}, ${why}`;
}

/** A list of header names, in lower case; `check` says why one may not be listed, `key` what no two may share. */
const headerList = <T>(entry: (item: string) => T, check: (value: T) => string | undefined, key: (value: T) => string, what: string) =>
  z
    .string()
    .transform((value, context) => {
      const entries = commaSeparated(value).map((item) => entry(item.toLowerCase()));
      const seen = new Set<string>();
      for (const item of entries) {
        const why = check(item) ?? (seen.has(key(item)) ? `${key(item)} twice` : undefined);
        if (why !== undefined) context.addIssue({ code: 'custom', message: `may not name ${why}` });
        seen.add(key(item));
      }
      return entries;
    })
    .describe(what);

/** A client header sent upstream: under its own name, or renamed (`x-tenant-id=x-vms-tenant`). */
export interface ForwardedHeader {
  name: string;
  upstreamName: string;
}

/** FORWARD_HEADERS: `name` or `name=upstream-name`, comma-separated. */
export const forwardedHeaderList = headerList(
  (item): ForwardedHeader => {
    // At the first `=` only: in `x-a=y=z` the upstream name is `y=z`, which is refused, not `y`.
    const at = item.indexOf('=');
    const name = (at === -1 ? item : item.slice(0, at)).trim();
    return { name, upstreamName: at === -1 ? name : item.slice(at + 1).trim() };
  },
  ({ name, upstreamName }) => refusedHeader(name, GATEWAY_REQUEST_HEADERS) ?? refusedHeader(upstreamName, GATEWAY_REQUEST_HEADERS),
  ({ upstreamName }) => upstreamName,
  'header names separated by commas; `name=upstream-name` renames one',
);

/** RETURN_HEADERS: upstream answer headers, comma-separated. */
export const returnedHeaderList = headerList(
  (item) => item,
  (name) => refusedHeader(name, GATEWAY_HEADERS),
  (name) => name,
  'header names separated by commas',
);
