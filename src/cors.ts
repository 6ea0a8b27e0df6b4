import type { YogaServerOptions } from 'graphql-yoga';
import { ANY_ORIGIN, patternBase } from './config/parsers.js';

/** Headers a browser app may send: the bearer token, JSON, its request id and Yoga's CSRF header. */
const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'x-request-id', 'x-graphql-yoga-csrf'];
/** How long a browser may reuse a preflight answer, in seconds. */
const CORS_MAX_AGE_SECONDS = 600;

type CorsOption = NonNullable<YogaServerOptions<object, object>['cors']>;

/**
 * Yoga's `cors` option for an allow-list. A listed origin gets itself back, never the list; any
 * other origin gets no CORS headers at all. Bearer tokens only, so credentials stay off.
 */
export function corsPolicy(allowList: readonly string[]): CorsOption {
  const any = allowList.includes(ANY_ORIGIN);
  const allowed = new Set(allowList);
  if (!any && allowed.size === 0) return false;
  const patterns = allowList.map(subdomainMatcher).filter((match) => match !== undefined);
  return (request: Request) => {
    const origin = request.headers.get('origin');
    if (origin === null || !(any || allowed.has(origin) || patterns.some((matches) => matches(origin)))) return false;
    return {
      origin,
      methods: ['GET', 'POST'],
      allowedHeaders: CORS_ALLOWED_HEADERS,
      exposedHeaders: ['x-request-id'],
      credentials: false,
      maxAge: CORS_MAX_AGE_SECONDS,
    };
  };
}

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
