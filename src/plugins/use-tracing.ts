import { type Span, SpanKind, SpanStatusCode, type Tracer, ROOT_CONTEXT, context, propagation, trace } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE, ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE } from '@opentelemetry/semantic-conventions';
import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { requestIdOf } from '../request-id.js';
import type { Envelope, UpstreamCall, UpstreamRequest } from '../upstream/client.js';

/**
 * A SERVER span per GraphQL operation, continuing the caller's W3C trace when it sent one. The span
 * is made active around the operation, so the upstream calls made by its resolvers become children.
 * Needs a registered tracer provider (context manager and W3C propagator), see src/tracing.ts.
 */
export function useTracing(tracer: Tracer): Plugin {
  const spans = new WeakMap<Request, Span>();
  return {
    instrumentation: {
      operation: ({ request }, wrapped) => {
        const parent = propagation.extract(ROOT_CONTEXT, Object.fromEntries(request.headers));
        const span = tracer.startSpan('graphql operation', { kind: SpanKind.SERVER, attributes: { 'gateway.request_id': requestIdOf(request) } }, parent);
        spans.set(request, span);
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
      const span = spans.get(args.contextValue.request);
      const operation = getOperationAST(args.document, args.operationName);
      if (!span || !operation) return;
      const name = operation.name?.value;
      span.updateName(name ? `${operation.operation} ${name}` : operation.operation);
      span.setAttribute('graphql.operation.type', operation.operation);
      if (name) span.setAttribute('graphql.operation.name', name);
    },
    onExecutionResult: ({ request, result }) => {
      const span = spans.get(request);
      if (!span || !result || Symbol.asyncIterator in result) return;
      const codes = [...new Set((result.errors ?? []).map((error) => String(error.extensions?.code ?? 'INTERNAL_SERVER_ERROR')))];
      if (codes.length === 0) return;
      span.setAttribute('graphql.error.codes', codes);
      span.setStatus({ code: SpanStatusCode.ERROR, message: codes.join(',') });
    },
  };
}

/**
 * A CLIENT span per upstream call, named by method and route template (never ids); its W3C
 * traceparent goes upstream with the request. For the UpstreamClient's `around` option.
 */
export function traceUpstreamCall(tracer: Tracer) {
  return (request: UpstreamRequest, send: (headers: Record<string, string>) => Promise<Envelope>): Promise<Envelope> => {
    const span = tracer.startSpan(`${request.method} ${request.route}`, {
      kind: SpanKind.CLIENT,
      attributes: { [ATTR_HTTP_REQUEST_METHOD]: request.method, 'url.template': request.route },
    });
    const active = trace.setSpan(context.active(), span);
    const headers: Record<string, string> = {};
    propagation.inject(active, headers);
    return context.with(active, async () => {
      try {
        return await send(headers);
      } finally {
        span.end();
      }
    });
  };
}

/** Adds what only the finished call knows to its span, for the UpstreamClient's `onCall`. */
export function annotateUpstreamSpan(call: UpstreamCall): void {
  const span = trace.getActiveSpan();
  if (!span) return;
  if (call.status !== undefined) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, call.status);
  if (call.errorCode !== undefined) {
    span.setAttribute(ATTR_ERROR_TYPE, call.errorCode);
    span.setStatus({ code: SpanStatusCode.ERROR, message: call.errorCode });
  }
}
