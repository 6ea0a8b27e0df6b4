import type { IncomingMessage } from 'node:http';

/**
 * A node:http request's headers read as the Fetch API's `Headers` that Yoga's Request wraps them
 * in: a name in any case, a repeated header as one value. For what reads a request before Yoga.
 */
export function nodeRequestHeaders(req: IncomingMessage): Pick<Headers, 'get'> {
  return {
    get: (name) => {
      const value = req.headers[name.toLowerCase()];
      return typeof value === 'string' ? value : Array.isArray(value) ? value.join(', ') : null;
    },
  };
}
