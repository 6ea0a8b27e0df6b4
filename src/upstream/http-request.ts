import { fillRoute } from './route.js';

type HttpMethod = 'GET' | 'POST' | 'PATCH';

/** One call of the contract, as a resolver asks for it: no URL, no headers. */
export interface UpstreamRequest {
  method: HttpMethod;
  /** Route template relative to UPSTREAM_URL, e.g. `/categories/:id`. */
  route: string;
  params?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
  body?: Record<string, unknown>;
}

/** Who a call is made for: everything here comes from the caller's own HTTP request. */
export interface CallerIdentity {
  /** The caller's Bearer credential, `Bearer <token>`. */
  authorization: string;
  requestId: string;
  /** The caller's own headers sent on with every call (FORWARD_HEADERS), by their upstream names. @default none */
  forwarded?: Readonly<Record<string, string>> | undefined;
}

/** What goes on the wire for one call. */
export interface HttpRequest {
  method: HttpMethod;
  /** Path and query below the upstream's origin. */
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** Where the calls go and what the gateway says of itself in each. */
export interface CallTarget {
  /** UPSTREAM_URL's path, without a trailing slash. */
  basePath: string;
  /** The `User-Agent` of every call (UPSTREAM_USER_AGENT, or the gateway's name and version). @default none */
  userAgent?: string | undefined;
}

/**
 * The HTTP request of one call: the route filled in below UPSTREAM_URL's path, the gateway's
 * User-Agent, the caller's own Authorization and request id, and JSON. `extraHeaders` (the trace
 * context) and the caller's forwarded headers cannot replace them.
 */
export function httpRequestOf(
  { basePath, userAgent }: CallTarget,
  request: UpstreamRequest,
  caller: CallerIdentity,
  extraHeaders: Record<string, string> = {},
): HttpRequest {
  const headers: Record<string, string> = {
    ...caller.forwarded,
    ...extraHeaders,
    ...(userAgent === undefined ? {} : { 'user-agent': userAgent }),
    accept: 'application/json',
    authorization: caller.authorization,
    'x-request-id': caller.requestId,
  };
  let body: string | undefined;
  if (request.body !== undefined) {
    body = JSON.stringify(request.body);
    headers['content-type'] = 'application/json';
  }
  return { method: request.method, path: basePath + pathOf(request), headers, body };
}

/** The path and query of one call below UPSTREAM_URL: its route filled in, e.g. `/categories/cat_1?limit=25`. */
export function pathOf(request: UpstreamRequest): string {
  return fillRoute(request.route, request.params) + queryString(request.query);
}

function queryString(query: UpstreamRequest['query']): string {
  if (!query) return '';
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) search.set(key, String(value));
  }
  const encoded = search.toString();
  return encoded === '' ? '' : `?${encoded}`;
}
