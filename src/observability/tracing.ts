import { context, defaultTextMapSetter, ROOT_CONTEXT, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVICE_NAME,
} from '@opentelemetry/semantic-conventions';
import type { Settings } from '../config/settings.js';
import type { Envelope, UpstreamCall, UpstreamRequest } from '../upstream/client.js';

export interface Tracing {
  provider: NodeTracerProvider;
  /** Sends the spans still buffered and stops the exporter. */
  shutdown(): Promise<void>;
}

/**
 * Exports spans over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set, and registers the provider
 * globally: its AsyncLocalStorage context manager carries the operation span into the resolvers,
 * and its W3C propagator writes traceparent. The exporter reads the standard OTEL_EXPORTER_OTLP_*
 * variables itself (endpoint, headers, timeout).
 */
export function startTracing({ otlpEndpoint, serviceName }: Pick<Settings, 'otlpEndpoint' | 'serviceName'>): Tracing | undefined {
  if (!otlpEndpoint) return undefined;
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
  return { provider, shutdown: () => provider.shutdown() };
}

/** Writes `traceparent` (and `tracestate`, which the gateway never sets) and nothing else: no baggage. */
const TRACE_CONTEXT = new W3CTraceContextPropagator();

/**
 * A CLIENT span per upstream call, named by method and route template (never ids); its W3C
 * traceparent goes upstream with the request. Only the gateway's own trace context goes: a
 * caller's `baggage` and `tracestate` are theirs to send to the gateway, not through it to the
 * upstream. For the UpstreamClient's `around` option.
 */
export function traceUpstreamCall(tracer: Tracer) {
  return (request: UpstreamRequest, send: (headers: Record<string, string>) => Promise<Envelope>): Promise<Envelope> => {
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
  if (call.errorCode !== undefined) {
    span.setAttribute(ATTR_ERROR_TYPE, call.errorCode);
    span.setStatus({ code: SpanStatusCode.ERROR, message: call.errorCode });
  }
}
