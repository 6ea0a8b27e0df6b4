import type { Plugin } from 'graphql-yoga';

/** On every answer, those written before Yoga included: a browser never guesses a type the answer does not declare. */
export const SECURITY_HEADERS = { 'x-content-type-options': 'nosniff' } as const;

/**
 * GraphiQL's page holds a header editor with the caller's token: no other site may frame it
 * (clickjacking), and it runs only the gateway's own scripts, which it serves as static files.
 * Styles are the gateway's stylesheets and the inline `style` attributes Monaco writes at run
 * time, hence 'unsafe-inline' for styles alone (docs/clients.md, section Browser apps, says why).
 */
const GRAPHIQL_PAGE_HEADERS = {
  'content-security-policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
} as const;

/** Security headers browsers honour: nosniff on every answer, and a strict policy on HTML pages (GraphiQL). */
export function useSecurityHeaders(): Plugin {
  return {
    onResponse: ({ response }) => {
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.headers.set(name, value);
      const type = response.headers.get('content-type');
      if (!type?.startsWith('text/html')) return;
      if (!/charset=/i.test(type)) {
        // Deleted first: a Response made from a headers object (Yoga's GraphiQL page: `Content-Type`)
        // keeps that spelling beside the one `set` adds, and both went out on the wire.
        response.headers.delete('content-type');
        response.headers.set('content-type', 'text/html; charset=utf-8');
      }
      for (const [name, value] of Object.entries(GRAPHIQL_PAGE_HEADERS)) response.headers.set(name, value);
    },
  };
}
