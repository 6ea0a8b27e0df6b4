import type { Plugin } from 'graphql-yoga';
import { varyingOn } from '../http/vary.js';

/**
 * With an allow-list, CORS headers depend on the Origin header, yet Yoga only says so when it
 * reflects several origins; and a preflight's allowed headers depend on the
 * Access-Control-Request-Headers it asked with, which Yoga says only when that header was sent.
 * A cache compares a request with the Vary of the answer it stored, so every answer must name
 * the same headers: Origin on all, and Access-Control-Request-Headers on every preflight.
 */
export function useCorsVary(): Plugin {
  return {
    onResponse: ({ request, response }) => {
      varyOn(response, 'Origin');
      if (request.method === 'OPTIONS') varyOn(response, 'Access-Control-Request-Headers');
    },
  };
}

/** Adds `header` to the answer's Vary unless it names it already; a header it names is left as it is. */
function varyOn(response: Response, header: string): void {
  const vary = response.headers.get('vary');
  const varying = varyingOn(vary, header);
  if (varying !== vary) response.headers.set('vary', varying);
}
