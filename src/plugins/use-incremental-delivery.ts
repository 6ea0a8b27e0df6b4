import { memoize1 } from '@graphql-tools/utils';
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { type DocumentNode, type GraphQLError, visit } from 'graphql';
import { isAsyncIterable, mapAsyncIterator, maskError, type Plugin, useExecutionCancellation } from 'graphql-yoga';
import { copiedError, withErrorsMapped } from '../errors.js';
import { acceptsAnyOf } from '../http/accept.js';
import { recordOf } from '../operation-record.js';
import { incrementalDirectivesOf, isIncrementalDirective } from '../schema/incremental-delivery.js';

/** The media types Yoga answers an incremental result with (its multipart and SSE result processors). */
const INCREMENTAL_TYPES = ['multipart/mixed', 'text/event-stream'];

/** What Yoga's error masking (`maskedErrors`) says in place of an unexpected error. */
const MASKED_MESSAGE = 'Unexpected error.';

/**
 * `@defer` and `@stream` (Yoga's defer-stream plugin: its validation rules, and the executor's
 * incremental results), answered in parts as `multipart/mixed`, or `text/event-stream` to a client
 * that asks for it. The schema declares both directives (src/schema/incremental-delivery.ts), and
 * their bounds are useLimits'.
 *
 * - An answer that cannot come in parts is given whole: for an operation in a batch (answered as
 *   one JSON array) or a client whose Accept header takes neither media type, the directives are
 *   taken out of the document before it runs, exactly as if each said `if: false`. Left to Yoga,
 *   the operation would run, upstream calls and all, for an answer of 406.
 * - An operation gets the request's signal (Yoga's useExecutionCancellation), so that the executor
 *   stops, and closes the lists it is streaming, when the client goes away. graphql-jit, which runs
 *   every operation that does not stream (useJit), takes no signal, so it costs those nothing.
 * - Yoga masks unexpected errors in a result's `errors` alone; those in the increments of later
 *   parts are masked here, the same way.
 * - An answer in parts says `X-Accel-Buffering: no`, so that an nginx in front passes each part on.
 */
export function useIncrementalDelivery(): Plugin {
  return {
    onPluginInit: ({ addPlugin }) => {
      addPlugin(useDeferStream() as Plugin);
      addPlugin(useExecutionCancellation());
    },
    onParams: ({ request, context }) => {
      const record = recordOf(context);
      record.answeredInParts = !record.batch && acceptsAnyOf(request.headers.get('accept'), INCREMENTAL_TYPES);
    },
    onExecute: ({ args }) => {
      if (incrementalDirectivesOf(args.document).length === 0 || recordOf(args.contextValue).answeredInParts) return;
      args.document = withoutIncrementalDirectives(args.document);
    },
    onResultProcess: ({ result, setResult }) => {
      if (isAsyncIterable(result)) setResult(mapAsyncIterator(result, withIncrementsMasked));
    },
    onResponse: ({ response }) => {
      // nginx (and ingress-nginx) buffer a proxied answer whole by default; this header asks them, per answer, not to.
      if (/^(multipart\/mixed|text\/event-stream)/.test(response.headers.get('content-type') ?? '')) {
        response.headers.set('x-accel-buffering', 'no');
      }
    },
  };
}

/** Each document without its `@defer` and `@stream`, made once and released with it. */
const withoutIncrementalDirectives = memoize1(
  (document: DocumentNode): DocumentNode => visit(document, { Directive: (node) => (isIncrementalDirective(node) ? null : undefined) }),
);

/**
 * A part of an answer in parts with the errors of its increments masked, and without the
 * extensions Yoga keeps for itself (`http`, `unexpected`), which it drops from a result's own
 * `errors` alone. Those are Yoga's to mask.
 */
function withIncrementsMasked<T>(part: T): T {
  const { incremental } = part as { incremental?: ReadonlyArray<{ errors?: readonly GraphQLError[] }> };
  if (!incremental) return part;
  const masked = withErrorsMapped({ incremental }, (errors) => errors.map(published));
  return masked ? { ...part, incremental: masked.incremental } : part;
}

function published(error: GraphQLError): GraphQLError {
  const masked = maskError(error, MASKED_MESSAGE, false) as GraphQLError;
  const { http, unexpected, ...extensions } = masked.extensions;
  if (http === undefined && unexpected === undefined) return masked;
  return copiedError(masked, { extensions });
}
