import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { ErrorCode } from '../errors.js';

export interface AllowedMethodsOptions {
  /** The GraphQL endpoint's path, whose OPTIONS answers carry `Allow`. @default '/graphql' */
  endpoint?: string;
  /** The methods the endpoint serves, in the order `Allow` lists them. @default ['GET', 'HEAD', 'POST', 'OPTIONS'] */
  methods?: readonly string[];
}

/**
 * A method the GraphQL endpoint does not serve is answered 405 with `Allow`, whatever else the
 * request carries, before any other check: Yoga checks the method only after the plugins, so a bare
 * `DELETE` was refused by the CSRF check (403) and only one with a JSON body got its 405. `OPTIONS`
 * is answered 204 with `Allow` (when CORS is on, Yoga answers it and this adds `Allow`). `HEAD` is
 * served as `GET` by the HTTP front (src/server/http-server.ts), which sends no body: listed here,
 * it passes, and Yoga alone (in process) refuses it.
 */
export function useAllowedMethods({
  endpoint = '/graphql',
  methods = ['GET', 'HEAD', 'POST', 'OPTIONS'],
}: AllowedMethodsOptions = {}): Plugin {
  const allow = methods.join(', ');
  const served = new Set(methods);
  return {
    onRequest: ({ request, url, endResponse, fetchAPI }) => {
      if (request.method !== 'OPTIONS' || url.pathname !== endpoint) return;
      endResponse(new fetchAPI.Response(null, { status: 204, headers: { 'content-length': '0' } }));
    },
    onRequestParse: ({ request }) => {
      if (served.has(request.method)) return;
      throw new GraphQLError(`The GraphQL endpoint serves ${allow}, not ${request.method}.`, {
        extensions: { code: ErrorCode.BAD_REQUEST, http: { status: 405, headers: { allow } } },
      });
    },
    onResponse: ({ request, response }) => {
      if (request.method === 'OPTIONS' && new URL(request.url).pathname === endpoint) response.headers.set('allow', allow);
    },
  };
}
