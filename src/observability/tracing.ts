// Spans of the upstream calls, on the OpenTelemetry API alone: the SDK and the exporter are in
// tracing-export.ts, loaded only when tracing is on (they hold about 20 MB a gateway without tracing
// never needs).
import { context, defaultTextMapSetter, ROOT_CONTEXT, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { ATTR_ERROR_TYPE, ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE } from '@opentelemetry/semantic-conventions';
import type { UpstreamCall, UpstreamRequest } from '../upstream/client.js';

/** Writes `traceparent` (and `tracestate`, which the gateway never sets) and nothing else: no baggage. */
const TRACE_CONTEXT = new W3CTraceContextPropagator();

/**
 * A CLIENT span per upstream call, named by method and route template (never ids); its W3C
 * traceparent goes upstream with the request. Only the gateway's own trace context goes: a
 * caller's `baggage` and `tracestate` are theirs to send to the gateway, not through it to the
 * upstream. For the UpstreamClient's `around` option.
 */
export function traceUpstreamCall(tracer: Tracer) {
  return <T>(request: UpstreamRequest, send: (headers: Record<string, string>) => Promise<T>): Promise<T> => {
    const span = tracer.startSpan(`${request.method} ${request.route}`, {
      kind: SpanKind.CLIENT,
      attributes: { [ATTR_HTTP_REQUEST_METHOD]: request.method, 'url.template': request.route },
    });
    const active = trace.setSpan(context.active(), span);
    const headers: Record<string, string> = {};
    const own = trace.setSpanContext(ROOT_CONTEXT, { ...span.spanContext(), traceState: undefined });
    TRACE_CONTEXT.inject(own, headers, defaultTextMapSetter);
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
  // Names only: a value is the caller's, and may be personal.
  if (call.forwardedHeaders.length > 0) span.setAttribute('gateway.forwarded_headers', [...call.forwardedHeaders]);
  if (call.errorCode !== undefined) {
    span.setAttribute(ATTR_ERROR_TYPE, call.errorCode);
    span.setStatus({ code: SpanStatusCode.ERROR, message: call.errorCode });
  }
}
