import { getCORSHeadersByRequestAndOptions } from '@whatwg-node/server';
import type { YogaServerOptions } from 'graphql-yoga';
import { ANY_ORIGIN, patternBase } from '../config/parsers.js';
import type { Settings } from '../config/settings.js';
import { NOTICE_HEADERS } from '../http/merged-headers.js';

/**
 * Answer headers a page may read: its request id, how long to wait after a 409, 429 or 503, what its
 * upstream calls took (X-Debug-Upstream), and whether its answer is an Idempotency-Key's replay.
 */
const CORS_EXPOSED_HEADERS = ['x-request-id', 'Retry-After', 'Server-Timing', 'Idempotent-Replayed'];
/** How long a browser may reuse a preflight answer, in seconds. */
const CORS_MAX_AGE_SECONDS = 600;

type CorsOption = NonNullable<YogaServerOptions<object, object>['cors']>;
type CorsOptions = Exclude<Awaited<ReturnType<Extract<CorsOption, (...args: never[]) => unknown>>>, false>;

export interface CorsPolicy {
  /** Whether any origin is allowed: then every answer varies on Origin, and Yoga answers preflights. */
  on: boolean;
  /**
   * The CORS headers of an answer to this request, by Yoga's own function
   * (`getCORSHeadersByRequestAndOptions`), and the names its `Vary` must hold: Origin on every
   * answer, and Access-Control-Request-Headers on every preflight, whatever the origin. Nothing
   * when CORS is off.
   */
  headersFor(request: { method: string; headers: Pick<Headers, 'get'> }): { headers: Record<string, string>; vary: readonly string[] };
}

type CorsSettings = Pick<Settings, 'corsOrigins' | 'corsAllowCredentials' | 'returnHeaders'>;

/**
 * CORS for an allow-list. A listed origin gets itself back, never the list; any other origin gets
 * no CORS headers at all. Credentials only when CORS_ALLOW_CREDENTIALS says so, and never with
 * `*` (refused at start-up). Every answer is given them where it is finished (src/answer/finish.ts),
 * Yoga's and the ones written before Yoga alike, so a page can read a 413 as well as a 200.
 *
 * A listed origin's preflight is allowed the request headers it asks for, as Apollo Router does:
 * each monitoring or tracing library a frontend adds sends headers of its own (Datadog's
 * `x-datadog-*`, New Relic's `newrelic`, Elastic's `elastic-apm-traceparent`, X-Ray's
 * `x-amzn-trace-id`, Dynatrace's `x-dtc`, …), and a fixed list failed each new one with "Failed to
 * fetch". For a trusted page the headers it may send guard nothing: the gateway reads only the ones
 * it knows, and forwards upstream only `Authorization` and a checked `x-request-id`. The names are
 * given back one by one rather than as `*`, which a browser does not honour with credentials nor
 * for `Authorization`. Yoga's function mirrors them when no list is given.
 */
export function corsPolicy({ corsOrigins, corsAllowCredentials, returnHeaders }: CorsSettings): CorsPolicy {
  // A page reads the headers the REST API returns through the gateway, and its deprecation notices, only once they are exposed.
  const exposedHeaders = [
    ...new Set([...CORS_EXPOSED_HEADERS, ...NOTICE_HEADERS, ...returnHeaders.filter((name) => name !== 'retry-after')]),
  ];
  const any = corsOrigins.includes(ANY_ORIGIN);
  const exact = new Set(corsOrigins);
  const patterns = corsOrigins.map(subdomainMatcher).filter((match) => match !== undefined);
  const allowed = (origin: string | null | undefined): origin is string =>
    origin != null && (any || exact.has(origin) || patterns.some((matches) => matches(origin)));
  const optionsFor = (origin: string): CorsOptions => ({
    origin,
    methods: ['GET', 'POST'],
    exposedHeaders,
    credentials: corsAllowCredentials,
    maxAge: CORS_MAX_AGE_SECONDS,
  });
  if (!any && exact.size === 0) return { on: false, headersFor: () => NO_CORS };
  return {
    on: true,
    headersFor: ({ method, headers }) => {
      const origin = headers.get('origin');
      const given = allowed(origin) ? getCORSHeadersByRequestAndOptions({ headers } as Request, optionsFor(origin)) : null;
      const lowered: Record<string, string> = {};
      const vary: string[] = [];
      for (const [name, value] of Object.entries(given ?? {})) {
        if (name.toLowerCase() === 'vary') vary.push(...value.split(',').map((header) => header.trim()));
        else lowered[name.toLowerCase()] = value;
      }
      vary.push(...(method === 'OPTIONS' ? PREFLIGHT_VARY : VARY));
      return { headers: lowered, vary };
    },
  };
}

/** What every answer varies on, whatever its origin, beside what Yoga's function names: its CORS headers depend on the Origin. */
const VARY = ['Origin'];
/** What a preflight varies on: the request headers it is allowed depend on those it asked for. */
const PREFLIGHT_VARY = ['Origin', 'Access-Control-Request-Headers'];

/** The CORS of an answer when CORS is off. */
const NO_CORS = { headers: {}, vary: [] };

/**
 * For `https://*.example.com`: whether an origin is on a subdomain of example.com, at any depth,
 * with the same scheme and port. The apex itself is not matched; list it too if it calls.
 */
function subdomainMatcher(entry: string): ((origin: string) => boolean) | undefined {
  const base = patternBase(entry);
  if (base === undefined) return undefined;
  const { protocol, host } = new URL(base);
  const suffix = `.${host}`;
  return (origin) => {
    if (!origin.startsWith(`${protocol}//`)) return false;
    const rest = origin.slice(protocol.length + 2);
    // Labels before the suffix: letters, digits and hyphens only, so nothing else can sneak in.
    return rest.endsWith(suffix) && /^([a-z0-9-]+\.)+$/.test(rest.slice(0, -host.length));
  };
}
