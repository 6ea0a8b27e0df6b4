import { useDisableIntrospection } from '@graphql-yoga/plugin-disable-introspection';
import type { TracerProvider } from '@opentelemetry/api';
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import { type Settings, settingsWith } from './config/settings.js';
import { type CallerContext, callerContext } from './context.js';
import { corsPolicy } from './cors.js';
import { graphiqlOptions } from './graphiql/options.js';
import { createLogger, type Logger } from './observability/logger.js';
import { createMetrics, type Metrics, watchUpstream } from './observability/metrics.js';
import { logRequest, logUpstreamCall } from './observability/request-log.js';
import { annotateUpstreamSpan, traceUpstreamCall } from './observability/tracing.js';
import { useAutomaticPersistedQueries } from './plugins/use-automatic-persisted-queries.js';
import { useCacheControl } from './plugins/use-cache-control.js';
import { useCompression } from './plugins/use-compression.js';
import { useCSRFPrevention } from './plugins/use-csrf-prevention.js';
import { useGraphiQLAssets } from './plugins/use-graphiql-assets.js';
import { useHiddenSuggestions } from './plugins/use-hidden-suggestions.js';
import { useJit } from './plugins/use-jit.js';
import { useLimits } from './plugins/use-limits.js';
import { useReadiness } from './plugins/use-readiness.js';
import { useRequestErrorCodes } from './plugins/use-request-error-codes.js';
import { useRequestId } from './plugins/use-request-id.js';
import { useRequestSummary } from './plugins/use-request-summary.js';
import { SECURITY_HEADERS, useSecurityHeaders } from './plugins/use-security-headers.js';
import { useTracing } from './plugins/use-tracing.js';
import { loadTrustedDocuments, useTrustedDocuments } from './plugins/use-trusted-documents.js';
import { useUpstreamBudget } from './plugins/use-upstream-budget.js';
import { useUpstreamErrors } from './plugins/use-upstream-errors.js';
import { useUpstreamShapeErrors } from './plugins/use-upstream-shape-errors.js';
import { useVaryOrigin } from './plugins/use-vary-origin.js';
import { schema, subgraphSchema } from './schema/index.js';
import { UpstreamClient } from './upstream/client.js';

/**
 * Any setting (docs/configuration.md; unset ones take their default for `production`), plus what
 * only a program can pass. Process settings (port, host, workers, log level, shutdown, tracing
 * export) are accepted so that src/main.ts can pass all of them, and are used by src/main.ts alone.
 */
export type GatewayOptions = Partial<Omit<Settings, 'upstreamUrl'>> & {
  /** Upstream base address ending in /v2. */
  upstreamUrl: URL;
  /** Request lines (info) and upstream-call lines (debug). @default none: nothing is logged */
  logger?: Logger | undefined;
  /** Makes a span per operation and upstream call, see src/observability/tracing.ts. @default none: no tracing */
  tracerProvider?: TracerProvider | undefined;
  /** Headers GraphiQL opens with, e.g. the sandbox's Authorization header. @default none */
  graphiqlHeaders?: Record<string, string> | undefined;
};

export interface Gateway {
  yoga: YogaServerInstance<Record<string, unknown>, CallerContext>;
  /** Headers for answers written before Yoga (src/server/http-server.ts): CORS and nosniff, as Yoga's answers carry. */
  headersBeforeYoga(origin: string | undefined): Record<string, string>;
  /** What src/server/metrics-server.ts serves on METRICS_PORT. */
  metrics: Metrics;
  close(): Promise<void>;
}

/** The GraphQL server in front of one upstream. The schema is built once; everything per caller lives in its context. */
export function createGateway({
  upstreamUrl,
  logger = createLogger({ level: 'silent' }),
  tracerProvider,
  graphiqlHeaders,
  ...chosen
}: GatewayOptions): Gateway {
  const settings: Settings = { ...settingsWith(chosen), upstreamUrl };
  // Read first: a bad manifest stops start-up before anything is opened.
  const trustedDocuments = settings.trustedDocuments === undefined ? undefined : loadTrustedDocuments(settings.trustedDocuments);
  const tracer = tracerProvider?.getTracer('vms-graphql-gateway');
  const metrics = createMetrics({ namesAreTrusted: trustedDocuments !== undefined, clientNames: settings.metricsClientNames });
  const logCall = logUpstreamCall(logger);
  const logLine = logRequest(logger);
  const client = new UpstreamClient({
    baseUrl: upstreamUrl,
    settings,
    onCall: (call) => {
      logCall(call);
      metrics.observeUpstreamCall(call);
      if (tracer) annotateUpstreamSpan(call);
    },
    around: tracer ? traceUpstreamCall(tracer) : undefined,
  });
  watchUpstream(metrics, client);

  // The order is behaviour: Envelop runs each hook in list order, and onResponse hooks too.
  const plugins: Plugin[] = [
    // First: a "simple" request (GET, form or text/plain POST), which a browser sends cross-site without a
    // preflight, must carry the CSRF header or a Bearer credential, or nothing else is done for it.
    useCSRFPrevention(),
    // Tokens while parsing; depth, aliases, directives, cost and introspection's bounds while validating: before anything runs.
    useLimits(settings),
    // INTROSPECTION=false: __schema and __type are refused at validation.
    settings.introspection ? [] : (useDisableIntrospection() as Plugin),
    // Just before execution: an operation over MAX_UPSTREAM_CALLS sends nothing.
    useUpstreamBudget() as Plugin,
    // Errors below a root field without a code of ours mean a record that does not fit: UPSTREAM_BAD_RESPONSE.
    useUpstreamShapeErrors(),
    // x-request-id on every answer, /health and /ready included.
    useRequestId(),
    // One summary per request, for the log line and the metrics.
    useRequestSummary((summary) => {
      logLine(summary);
      metrics.observeRequest(summary);
    }),
    // One server span per operation, the parent of the upstream calls' spans.
    tracer ? useTracing(tracer, { continueCallerTrace: settings.traceCallerContext }) : [],
    // GET /ready, answered in onRequest, whatever the upstream's health.
    useReadiness(),
    // GraphiQL's static files under /graphiql/, answered in onRequest; the page itself is Yoga's.
    settings.graphiql ? useGraphiQLAssets() : [],
    // Only listed operations, sent by documentId; after the request summary, so refusals are logged and counted.
    trustedDocuments ? useTrustedDocuments(trustedDocuments) : [],
    // Hash-only requests of documents clients registered; never beside trusted documents, which allow no registration.
    trustedDocuments || settings.apqStoreBytes === 0 ? [] : useAutomaticPersistedQueries(settings.apqStoreBytes),
    // Executes through graphql-jit, one compiled function per document.
    useJit(),
    // One upstream answer can hold several error objects: the rest go next to the first, at its path.
    useUpstreamErrors(),
    // Codes for request-level errors (variables, CSRF) before Yoga derives the HTTP status from them.
    useRequestErrorCodes(),
    // FIELD_SUGGESTIONS=false: every "Did you mean ...?" hidden, of validation and of variables alike.
    settings.fieldSuggestions ? [] : useHiddenSuggestions(),
    // private, no-store on every answer but preflights: each depends on the caller's token.
    useCacheControl(),
    // nosniff on every answer; framing and script policy on GraphiQL's page.
    useSecurityHeaders(),
    // With an allow-list the CORS headers depend on Origin: say so to caches.
    settings.corsOrigins.length > 0 ? useVaryOrigin() : [],
    // Last: compresses the final body, with every header already set.
    useCompression(settings.compressionMinBytes),
  ].flat();

  const cors = corsPolicy(settings);
  const yoga = createYoga<Record<string, unknown>, CallerContext>({
    schema: settings.federation ? subgraphSchema() : schema,
    context: callerContext(client, settings),
    graphqlEndpoint: '/graphql',
    landingPage: false,
    logging: false,
    maskedErrors: { isDev: false },
    ...graphiqlOptions(settings.graphiql, graphiqlHeaders),
    cors: cors.yoga,
    // The body limit is enforced in front of Yoga, by src/server/http-server.ts.
    maxRequestBodySize: false,
    // A JSON array of operations, answered with an array; the batch shares one upstream budget and deadline.
    batching: { limit: settings.maxBatchSize },
    plugins,
  });
  return {
    yoga,
    metrics,
    headersBeforeYoga: (origin) => ({ ...cors.headersFor(origin), ...SECURITY_HEADERS }),
    close: () => client.close(),
  };
}
