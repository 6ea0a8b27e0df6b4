import type { Plugin } from 'graphql-yoga';

/**
 * Every answer may hold data only its caller's token may see (errors included, and GraphiQL may
 * carry a preset token), so no shared cache may keep one to replay it to someone else. Preflight
 * answers hold no caller data and are cached by the browser through Access-Control-Max-Age; an
 * answer that set its own policy (GraphiQL's static files) keeps it, except an event stream, whose
 * `no-cache` from Yoga would let a shared cache store a result in parts.
 */
export function useCacheControl(): Plugin {
  return {
    onResponse: ({ request, response }) => {
      if (request.method === 'OPTIONS') return;
      if (!response.headers.has('cache-control') || response.headers.get('content-type')?.startsWith('text/event-stream')) {
        // Deleted first: @whatwg-node's Headers made from an object keep its `Cache-Control` beside a `set` one, and send both.
        response.headers.delete('cache-control');
        response.headers.set('cache-control', 'private, no-store');
      }
    },
  };
}
