import { context, propagation, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { codeOf } from '../errors.js';
import { clientOf } from '../observability/client-identity.js';
import { requestIdOf } from '../observability/request-id.js';
import { recordedOperationName } from '../observability/request-summary.js';

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
 * become children (src/observability/tracing.ts). It names the calling app (client awareness).
 */
export function useTracing({ tracer, traceCallerContext = true }: TracingOptions): Plugin {
  // By each operation's context, not by the Request: the operations of a batch share one Request.
  const spans = new WeakMap<object, Span>();
  return {
    instrumentation: {
      operation: ({ request, context: operationContext }, wrapped) => {
        const parent = traceCallerContext ? propagation.extract(ROOT_CONTEXT, Object.fromEntries(request.headers)) : ROOT_CONTEXT;
        const client = clientOf(request.headers);
        const span = tracer.startSpan(
          'graphql operation',
          {
            kind: SpanKind.SERVER,
            attributes: {
              'gateway.request_id': requestIdOf(request),
              ...(client.name === undefined ? {} : { 'graphql.client.name': client.name }),
              ...(client.version === undefined ? {} : { 'graphql.client.version': client.version }),
            },
          },
          parent,
        );
        spans.set(operationContext, span);
        return context.with(trace.setSpan(parent, span), async () => {
          try {
            await wrapped();
          } finally {
            span.end();
          }
        });
      },
    },
    onExecute: ({ args }) => {
      const span = spans.get(args.contextValue);
      const operation = getOperationAST(args.document, args.operationName);
      if (!span || !operation) return;
      const name = recordedOperationName(operation.name?.value);
      span.updateName(name ? `${operation.operation} ${name}` : operation.operation);
      span.setAttribute('graphql.operation.type', operation.operation);
      if (name) span.setAttribute('graphql.operation.name', name);
    },
    onExecutionResult: ({ context: operationContext, result }) => {
      const span = spans.get(operationContext);
      if (!span || !result || Symbol.asyncIterator in result) return;
      const codes = [...new Set((result.errors ?? []).map(codeOf))];
      if (codes.length === 0) return;
      span.setAttribute('graphql.error.codes', codes);
      span.setStatus({ code: SpanStatusCode.ERROR, message: codes.join(',') });
    },
  };
}
