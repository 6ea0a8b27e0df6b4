import { context, propagation, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import type { Plugin } from 'graphql-yoga';
import { codeOf } from '../errors.js';
import { OperationSlot, recordOf, requestRecords } from '../operation-record.js';

export interface TracingOptions {
  /** Makes the spans; needs a registered tracer provider (context manager and W3C propagator). */
  tracer: Tracer;
  /** Make a valid incoming `traceparent` the parent of the operation's span (TRACE_CALLER_CONTEXT). @default true */
  traceCallerContext?: boolean;
}

/**
 * A SERVER span per GraphQL operation, continuing the caller's W3C trace when it sent one (unless
 * TRACE_CALLER_CONTEXT=false), so a browser's trace runs on through the gateway to the upstream
 * call. The span is made active around the operation, so the upstream calls made by its resolvers
 * become children (src/observability/tracing.ts). It reads the operation's record for its request
 * id, the calling app (client awareness) and the operation's name and type.
 */
/** Where the span waits on the operation's context until the record is there: a batch's operation holds its own from its parameters on. */
const SPAN = Symbol('operation span');
type Spanned = { [SPAN]?: Span };

export function useTracing({ tracer, traceCallerContext = true }: TracingOptions): Plugin {
  /** Each operation's span, held from its parameters on. */
  const spans = new OperationSlot<Span>();
  return {
    instrumentation: {
      operation: ({ request, context: operationContext }, wrapped) => {
        // An operation of a batch holds its own record only from its parameters on; what names the request is every record's.
        const [record] = requestRecords(operationContext);
        const parent = traceCallerContext ? propagation.extract(ROOT_CONTEXT, Object.fromEntries(request.headers)) : ROOT_CONTEXT;
        const span = tracer.startSpan(
          'graphql operation',
          {
            kind: SpanKind.SERVER,
            attributes: {
              ...(record ? { 'gateway.request_id': record.requestId } : {}),
              ...(record?.client.name === undefined ? {} : { 'graphql.client.name': record.client.name }),
              ...(record?.client.version === undefined ? {} : { 'graphql.client.version': record.client.version }),
            },
          },
          parent,
        );
        (operationContext as Spanned)[SPAN] = span;
        return context.with(trace.setSpan(parent, span), async () => {
          try {
            await wrapped();
          } finally {
            span.end();
          }
        });
      },
    },
    // Its context holds the operation's record from here on: the span goes there.
    onParams: ({ context: operationContext }) => {
      const span = (operationContext as Spanned)[SPAN];
      if (span) spans.set(recordOf(operationContext), span);
    },
    onExecute: ({ args }) => {
      const record = recordOf(args.contextValue);
      const span = spans.get(record);
      if (!span || !record.operationType) return;
      const name = record.operationName;
      span.updateName(name ? `${record.operationType} ${name}` : record.operationType);
      span.setAttribute('graphql.operation.type', record.operationType);
      if (name) span.setAttribute('graphql.operation.name', name);
    },
    onExecutionResult: ({ context: operationContext, result }) => {
      const span = spans.get(recordOf(operationContext));
      if (!span || !result || Symbol.asyncIterator in result) return;
      const codes = [...new Set((result.errors ?? []).map(codeOf))];
      if (codes.length === 0) return;
      span.setAttribute('graphql.error.codes', codes);
      span.setStatus({ code: SpanStatusCode.ERROR, message: codes.join(',') });
    },
  };
}
