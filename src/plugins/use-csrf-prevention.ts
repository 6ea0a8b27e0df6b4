import { useCSRFPrevention as useYogaCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { ErrorCode } from '../errors.js';
import { bearerCredential } from '../http/bearer.js';

export interface CSRFPreventionOptions {
  /** Headers of which a simple request must carry one, unless it carries a Bearer credential. @default ['x-graphql-yoga-csrf'] */
  requestHeaders?: readonly string[];
}

/**
 * Yoga's CSRF prevention, which refuses a "simple" request (a GET, or a form or text/plain POST)
 * without one of `requestHeaders`, except one that carries a Bearer credential in `Authorization`:
 * docs/clients.md#csrf says why that is not CSRF, and the one deployment where it would be. The
 * refusal is answered 403 `CSRF_HEADER_REQUIRED`, the code set here where it is detected.
 */
export function useCSRFPrevention({ requestHeaders = ['x-graphql-yoga-csrf'] }: CSRFPreventionOptions = {}): Plugin {
  const yoga = useYogaCSRFPrevention({ requestHeaders: [...requestHeaders] });
  return {
    onRequestParse(payload) {
      if (bearerCredential(payload.request.headers.get('authorization')) !== undefined) return;
      try {
        return yoga.onRequestParse?.(payload);
      } catch (error) {
        if (!(error instanceof GraphQLError)) throw error;
        throw new GraphQLError(error.message, { extensions: { ...error.extensions, code: ErrorCode.CSRF_HEADER_REQUIRED } });
      }
    },
  };
}
