import type { Tracer } from '@opentelemetry/api';
import type { UpstreamClientOptions } from '../upstream/client.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import { logRequest, logUpstreamCall } from './request-log.js';
import type { RequestSummary } from './request-summary.js';

/** Where what the gateway observes goes: each operation's summary, each upstream call as it ends, and the span each call runs in. */
export interface Observers {
  /** The log line and the metrics of one operation, Yoga's and the HTTP front's refusals alike. */
  onSummary(summary: RequestSummary): void;
  /** The upstream client's `onCall`: the call's debug line, metrics and span. */
  onCall: NonNullable<UpstreamClientOptions['onCall']>;
  /** The upstream client's `around`, which wraps each call: in its span, when tracing is on. */
  around: UpstreamClientOptions['around'];
}

export async function observers({
  logger,
  metrics,
  tracer,
}: {
  logger: Logger;
  metrics: Metrics;
  tracer: Tracer | undefined;
}): Promise<Observers> {
  // Loaded only with a tracer: OpenTelemetry's core and semantic conventions are needless to a gateway that makes no span.
  const tracing = tracer && (await import('./tracing.js'));
  const logLine = logRequest(logger);
  const logCall = logUpstreamCall(logger);
  return {
    onSummary: (summary) => {
      logLine(summary);
      metrics.observeRequest(summary);
    },
    onCall: (call) => {
      logCall(call);
      metrics.observeUpstreamCall(call);
      tracing?.annotateUpstreamSpan(call);
    },
    around: tracer && tracing?.traceUpstreamCall(tracer),
  };
}
