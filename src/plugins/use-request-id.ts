import type { Plugin } from 'graphql-yoga';
import { requestIdOf } from '../observability/request-id.js';

/** Returns the request id on every response, so a caller can quote it when reporting a problem. */
export function useRequestId(): Plugin {
  return {
    onResponse: ({ request, response }) => {
      response.headers.set('x-request-id', requestIdOf(request));
    },
  };
}
