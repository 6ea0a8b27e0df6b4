import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { Settings } from '../config/settings.js';

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
