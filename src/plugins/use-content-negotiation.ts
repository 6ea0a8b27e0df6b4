import { GraphQLError } from 'graphql';
import { type Plugin, processRegularResult } from 'graphql-yoga';
import { ErrorCode } from '../errors.js';
import { acceptsAnyOf } from '../http/accept.js';

/** What Yoga's result processors write: JSON (either type), and the streams, which also carry a single result. */
const PRODUCED = ['application/graphql-response+json', 'application/json', 'multipart/mixed', 'text/event-stream'] as const;

/**
 * Content negotiation decided before anything runs. Yoga picks the answer's media type only once
 * the result is there, and answered an Accept it cannot produce (`image/png`) with an empty 406
 * after executing: a mutation's write was done and its result withheld, and a client that retried
 * wrote twice. Here such a request is refused 406 `NOT_ACCEPTABLE` before its body is parsed, as
 * GraphQL over HTTP recommends (docs/clients.md, section GraphQL over HTTP, says why). A body whose
 * Content-Type no parser of Yoga reads is refused 415 `UNSUPPORTED_MEDIA_TYPE`, after the other
 * request checks (the CSRF check keeps its 403 for a form or text/plain POST), where Yoga answered
 * an empty 415. A refusal for an Accept that allows none of Yoga's types (the 406 itself, or a 405
 * checked before it) is written as `application/json` all the same (RFC 9110, 15.5.7), so that it
 * carries its code; no result of an operation is ever written that way, since such an Accept never
 * reaches execution.
 */
export function useContentNegotiation(): Plugin {
  return {
    onRequestParse: ({ request, requestParser, setRequestParser }) => {
      if (!acceptsAnyOf(request.headers.get('accept'), PRODUCED)) {
        throw new GraphQLError(
          `No answer can be written in a type the Accept header allows: accept ${PRODUCED[0]} or ${PRODUCED[1]}. Nothing was run.`,
          { extensions: { code: ErrorCode.NOT_ACCEPTABLE, http: { status: 406, headers: { accept: PRODUCED.join(', ') } } } },
        );
      }
      // Yoga's parsers, which run first, set one when they read this Content-Type. Refused by a parser rather
      // than here, so that it comes after every onRequestParse check.
      if (requestParser) return;
      setRequestParser(() => {
        throw new GraphQLError(`The body's Content-Type cannot be read: send ${PRODUCED[1]}.`, {
          extensions: { code: ErrorCode.UNSUPPORTED_MEDIA_TYPE, http: { status: 415, headers: { accept: PRODUCED[1] } } },
        });
      });
    },
    onResultProcess: ({ resultProcessor, setResultProcessor }) => {
      // Yoga's processors found no type of the Accept header: only a refusal made before execution gets here.
      if (!resultProcessor) setResultProcessor(processRegularResult, PRODUCED[1]);
    },
  };
}
