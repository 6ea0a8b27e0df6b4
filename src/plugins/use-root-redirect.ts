import type { Plugin } from 'graphql-yoga';

export interface RootRedirectOptions {
  /** Where a GET of `/` is sent. @default '/graphql' */
  location?: string;
}

/**
 * A GET of `/` is redirected (302) to GraphiQL: a person who opens the gateway's address in a
 * browser finds it, where a blank 404 told them nothing. Only the root itself; other paths stay 404.
 * The gateway adds it only where GraphiQL is served outside production (src/gateway.ts).
 */
export function useRootRedirect({ location = '/graphql' }: RootRedirectOptions = {}): Plugin {
  return {
    onRequest: ({ request, url, endResponse, fetchAPI }) => {
      if (url.pathname !== '/' || request.method !== 'GET') return;
      endResponse(new fetchAPI.Response(null, { status: 302, headers: { location, 'content-length': '0' } }));
    },
  };
}
