import type { TracerProvider } from '@opentelemetry/api';
import type { Plugin } from 'graphql-yoga';
import { type Logger, createLogger } from './logger.js';
import { logRequest, logUpstreamCall } from './plugins/use-logging.js';
import { createMetrics, useMetrics } from './plugins/use-metrics.js';
import { onGraphQLRequestDone } from './plugins/request-summary.js';
import { upstreamProbe, useReadiness } from './plugins/use-readiness.js';
import { useRequestId } from './plugins/use-request-id.js';
import { annotateUpstreamSpan, traceUpstreamCall, useTracing } from './plugins/use-tracing.js';
import type { UpstreamClient, UpstreamClientOptions } from './upstream/client.js';

export interface OperationsOptions {
  upstreamUrl: URL;
  /** Where request and upstream-call lines go. @default none: nothing is logged */
  logger?: Logger | undefined;
  /** Spans are made only when set, see src/tracing.ts. @default none */
  tracerProvider?: TracerProvider | undefined;
}

const CIRCUIT_STATES = { closed: 0, halfOpen: 1, open: 2 } as const;

/**
 * What operators see of one gateway: logs, metrics, traces, request ids and readiness. The
 * upstream client is built between `clientHooks` (which it needs) and `plugins` (which need it).
 */
export function createOperations({ upstreamUrl, logger = createLogger({ level: 'silent' }), tracerProvider }: OperationsOptions) {
  let client: UpstreamClient | undefined;
  const metrics = createMetrics({
    upstreamStats: () => client?.stats ?? { connected: 0, pending: 0, running: 0 },
    circuitState: () => CIRCUIT_STATES[client?.breakerState ?? 'closed'],
  });
  const tracer = tracerProvider?.getTracer('vms-graphql-gateway');
  const logCall = logUpstreamCall(logger);
  const logLine = logRequest(logger);
  const clientHooks: Pick<UpstreamClientOptions, 'onCall' | 'around'> = {
    onCall: (call) => {
      logCall(call);
      metrics.observeUpstreamCall(call);
      if (tracer) annotateUpstreamSpan(call);
    },
    around: tracer ? traceUpstreamCall(tracer) : undefined,
  };
  return {
    clientHooks,
    plugins(upstream: UpstreamClient): Plugin[] {
      client = upstream;
      const reachable = upstreamProbe(upstreamUrl);
      return [
        useRequestId(),
        // One summary per request, shared by the log line and the metrics.
        onGraphQLRequestDone((summary) => {
          logLine(summary);
          metrics.observeRequest(summary);
        }),
        useMetrics(metrics),
        ...(tracer ? [useTracing(tracer)] : []),
        useReadiness({ circuitOpen: () => upstream.breakerState === 'open', upstreamReachable: reachable }),
      ];
    },
  };
}
