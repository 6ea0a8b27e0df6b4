import { useCSRFPrevention as useYogaCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import type { Plugin } from 'graphql-yoga';
import { isBearer } from '../context.js';

/** The header Yoga's CSRF prevention asks of requests a browser sends cross-site without a preflight. */
const CSRF_HEADER = 'x-graphql-yoga-csrf';

/**
 * Yoga's CSRF prevention, which refuses a "simple" request (a GET, or a form or text/plain POST)
 * without the `x-graphql-yoga-csrf` header, except one that carries a Bearer credential in
 * `Authorization`. That is not CSRF: a cross-site page cannot make a browser send it without a
 * CORS preflight, which the allow-list answers, and no browser attaches a Bearer credential on its
 * own (it does attach Basic ones, which are therefore still checked). So urql's default GET,
 * `Authorization` and nothing else, is served.
 *
 * It does not hold behind a proxy that turns a cookie into the Authorization header: there the
 * credential is ambient again, and the proxy must do the CSRF check itself (docs/clients.md).
 */
export function useCSRFPrevention(): Plugin {
  const yoga = useYogaCSRFPrevention({ requestHeaders: [CSRF_HEADER] }) as Plugin;
  return {
    onRequestParse(payload) {
      if (isBearer(payload.request.headers.get('authorization'))) return;
      return yoga.onRequestParse?.(payload);
    },
  };
}
