import { useDisableIntrospection } from '@graphql-yoga/plugin-disable-introspection';
import type { Tracer, TracerProvider } from '@opentelemetry/api';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import { type CachedAnswers, cachedAnswers } from './cached-answers.js';
import { type Settings, servesGraphiQL, settingsWith } from './config/settings.js';
import { type CallerContext, callerContext } from './context.js';
import { corsPolicy } from './cors.js';
import type { ErrorCode } from './errors.js';
import { graphiqlOptions } from './graphiql/options.js';
import { createLogger, type Logger } from './observability/logger.js';
import { createMetrics, type Metrics, watchUpstream } from './observability/metrics.js';
import { type Observers, observers } from './observability/observers.js';
import { refusalSummary } from './observability/request-summary.js';
import { useAllowedMethods } from './plugins/use-allowed-methods.js';
import { useAutomaticPersistedQueries } from './plugins/use-automatic-persisted-queries.js';
import { useCacheControl } from './plugins/use-cache-control.js';
import { useCompression } from './plugins/use-compression.js';
import { useContentNegotiation } from './plugins/use-content-negotiation.js';
import { useCorsVary } from './plugins/use-cors-vary.js';
import { useCSRFPrevention } from './plugins/use-csrf-prevention.js';
import { useDocumentCache } from './plugins/use-document-cache.js';
import { useFieldUsage } from './plugins/use-field-usage.js';
import { useGraphiQLAssets } from './plugins/use-graphiql-assets.js';
import { useHiddenSuggestions } from './plugins/use-hidden-suggestions.js';
import { useIncrementalDelivery } from './plugins/use-incremental-delivery.js';
import { useJit } from './plugins/use-jit.js';
import { useLimits } from './plugins/use-limits.js';
import { useOperationRecords } from './plugins/use-operation-records.js';
import { OperationCounter, useRateLimit } from './plugins/use-rate-limit.js';
import { useReadiness } from './plugins/use-readiness.js';
import { useRequestErrorCodes } from './plugins/use-request-error-codes.js';
import { useRequestId } from './plugins/use-request-id.js';
import { useRequestSummary } from './plugins/use-request-summary.js';
import { useResponseCache } from './plugins/use-response-cache.js';
import { useRootRedirect } from './plugins/use-root-redirect.js';
import { SECURITY_HEADERS, useSecurityHeaders } from './plugins/use-security-headers.js';
import { useTracing } from './plugins/use-tracing.js';
import { loadTrustedDocuments, useTrustedDocuments } from './plugins/use-trusted-documents.js';
import { useUpstreamBudget } from './plugins/use-upstream-budget.js';
import { useUpstreamDebug } from './plugins/use-upstream-debug.js';
import { useUpstreamErrors } from './plugins/use-upstream-errors.js';
import { useUpstreamHeaders } from './plugins/use-upstream-headers.js';
import { useUpstreamShapeErrors } from './plugins/use-upstream-shape-errors.js';
import { MAX_INITIAL_COUNT, schema, subgraphSchema } from './schema/index.js';
import { openSharedState, type SharedState } from './state/shared-state.js';
import { UpstreamClient } from './upstream/client.js';

/** What only a program can give a gateway; every other option is a setting of docs/configuration.md. */
export interface ProgramOptions {
  /** Request lines (info) and upstream-call lines (debug). @default none: nothing is logged */
  logger?: Logger | undefined;
  /** Makes a span per operation and upstream call, see src/observability/tracing.ts. @default none: no tracing */
  tracerProvider?: TracerProvider | undefined;
  /** Headers GraphiQL opens with, e.g. the sandbox's Authorization header. @default none */
  graphiqlHeaders?: Record<string, string> | undefined;
}

/**
 * Any setting (unset ones take their default for `production`), with the upstream's address
 * resolved, plus what only a program can pass. Process settings (port, host, workers, shutdown,
 * tracing export) are accepted so that the whole settings object can be passed; they are used by
 * src/server/start.ts and src/main.ts.
 */
export type GatewayOptions = Partial<Omit<Settings, 'upstreamUrl'>> & ProgramOptions & { upstreamUrl: URL };

/** What the HTTP front knows of a request it answers itself. */
export interface RequestBeforeYoga {
  headers: Pick<Headers, 'get'>;
  /** From its arrival to its answer. */
  durationMs: number;
}

export interface Gateway {
  yoga: YogaServerInstance<Record<string, unknown>, CallerContext>;
  /**
   * For an answer the HTTP front writes before Yoga (src/server/http-server.ts: 413, 415): logs and
   * counts it as Yoga's answers are, and returns the headers Yoga's answers carry (CORS, nosniff,
   * `x-request-id`).
   */
  refusedBeforeYoga(request: RequestBeforeYoga, refusal: { status: number; code: ErrorCode }): Record<string, string>;
  /** Read cache hits the HTTP front answers before Yoga; undefined without a read cache, with trusted documents or with tracing, whose hits Yoga answers. */
  cachedAnswers: CachedAnswers | undefined;
  /** What src/server/metrics-server.ts serves on METRICS_PORT. */
  metrics: Metrics;
  /** Resolves once the shared state's Redis is connected (at once without REDIS_URL); requests never wait for it. */
  stateConnected(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The GraphQL server in front of one upstream. The settings are checked here, against the same
 * rules as the environment's (SETTING_RULES), whatever their source. The schema is built once;
 * everything per caller lives in its context and its operation's record.
 */
export function createGateway({
  logger = createLogger({ level: 'silent' }),
  tracerProvider,
  graphiqlHeaders,
  upstreamUrl,
  ...chosen
}: GatewayOptions): Gateway {
  const settings = { ...settingsWith({ ...chosen, upstreamUrl }), upstreamUrl };
  // Read first: a bad manifest stops start-up before anything is opened.
  const trustedDocuments = settings.trustedDocuments === undefined ? undefined : loadTrustedDocuments(settings.trustedDocuments);
  const tracer = tracerProvider?.getTracer('vms-graphql-gateway');
  const metrics = createMetrics({ namesAreTrusted: trustedDocuments !== undefined, clientNames: settings.metricsClientNames });
  const observe = observers({ logger, metrics, tracer });
  const client = new UpstreamClient({ settings, onCall: observe.onCall, around: observe.around });
  watchUpstream(metrics, client);
  const state = openSharedState(settings, { logger, registry: metrics.registry });
  const cors = corsPolicy(settings);
  const counter = state.operationLimiter ? new OperationCounter({ limiter: state.operationLimiter, ...settings }) : undefined;
  const yoga = createYoga<Record<string, unknown>, CallerContext>({
    schema: settings.federation ? subgraphSchema() : schema,
    context: callerContext(client, settings),
    graphqlEndpoint: '/graphql',
    landingPage: false,
    // Replaced by useDocumentCache, which bounds what it keeps in bytes and keeps only valid documents.
    parserAndValidationCache: false,
    logging: false,
    maskedErrors: { isDev: false },
    ...graphiqlOptions(servesGraphiQL(settings), graphiqlHeaders),
    cors: cors.yoga,
    // The body limit is enforced in front of Yoga, by src/server/http-server.ts.
    maxRequestBodySize: false,
    // A JSON array of operations, answered with an array; the batch shares one upstream budget and deadline.
    batching: { limit: settings.maxBatchSize },
    plugins: gatewayPlugins({ settings, state, counter, observe, tracer, trustedDocuments }),
  });
  const answersCached = state.responseCache && !trustedDocuments && !tracer;
  return {
    yoga,
    metrics,
    refusedBeforeYoga: (request, refusal) => {
      const summary = refusalSummary(request, refusal);
      observe.onSummary(summary);
      return { ...cors.headersFor(request.headers), ...SECURITY_HEADERS, 'x-request-id': summary.requestId };
    },
    cachedAnswers: answersCached
      ? cachedAnswers({ cache: state.responseCache!, counter, cors, onSummary: observe.onSummary, settings })
      : undefined,
    stateConnected: () => state.connected(),
    close: async () => {
      await client.close();
      await state.close();
    },
  };
}

/** What the plugin list is made from, beside the settings. */
interface PluginSources {
  settings: Settings;
  state: SharedState;
  /** The rate limit's counting, shared by useRateLimit and the HTTP front's cache hits; undefined when it is off. */
  counter: OperationCounter | undefined;
  observe: Observers;
  tracer: Tracer | undefined;
  trustedDocuments: ReadonlyMap<string, string> | undefined;
}

/**
 * The one ordered plugin list, in the order a request meets the plugins: the answers made before
 * any GraphQL work, the checks of the request, then what the operation meets as it is found,
 * parsed, validated and run, and last what amends the response. Envelop runs each hook in list
 * order, so the order is behaviour; a line says why a plugin stands where its first hook would not
 * put it. What each plugin does is its own docblock's business.
 */
function gatewayPlugins(sources: PluginSources) {
  return [...answeredBeforeGraphQL(sources), ...requestChecks(), ...operationPlugins(sources), ...responsePlugins(sources)].filter(
    (plugin) => plugin !== undefined,
  );
}

/** onRequest answers: the request never reaches parsing. */
function answeredBeforeGraphQL({ settings }: PluginSources) {
  return [
    useReadiness(),
    // Outside production the root leads a person to GraphiQL; production keeps its 404, offering nothing to a scanner.
    servesGraphiQL(settings) && !settings.production ? useRootRedirect() : undefined,
    servesGraphiQL(settings) ? useGraphiQLAssets() : undefined,
  ];
}

/** The request to the GraphQL endpoint, before anything of its operations is read. */
function requestChecks() {
  return [
    // The first onRequestParse hook: the records it opens are there for every plugin below, and for their refusals.
    useOperationRecords(),
    // The first check: a method the endpoint does not serve is 405 whatever headers come with it (the CSRF check would say 403).
    useAllowedMethods(),
    // Before anything is parsed or run: an answer that could not be written in an accepted type is refused first.
    useContentNegotiation(),
    // Before parsing, so that a cross-site simple request is refused before any work is done for it.
    useCSRFPrevention(),
  ];
}

/** What an operation meets from its parameters to its execution, in that order. */
function operationPlugins({ settings, state, counter, tracer, trustedDocuments }: PluginSources) {
  return [
    // onParams and the first onParse: an oversized document is refused before any plugin registers or parses
    // it, and a kept one skips the parsing (and its token count) as Yoga's own cache did.
    useDocumentCache(settings),
    // onParams, before anything is registered or answered from the cache; a document too large was refused for nothing already.
    counter ? useRateLimit(counter) : undefined,
    // onParams hooks: they replace the sent document (or refuse) before Yoga parses it.
    trustedDocuments ? useTrustedDocuments({ documents: trustedDocuments }) : undefined,
    trustedDocuments || !state.persistedQueries ? undefined : useAutomaticPersistedQueries({ store: state.persistedQueries }),
    // onParams, before useResponseCache, which keys on the headers it sends upstream; its onResponse before any other's.
    useUpstreamHeaders(settings),
    // onParams, before useResponseCache, which keeps no answer that shows its calls; its onExecutionResult before it too.
    useUpstreamDebug(settings),
    // After them, so that it keys on the document's text, whichever way it came; a hit skips everything below.
    state.responseCache ? useResponseCache({ cache: state.responseCache, ...settings }) : undefined,
    // Parsing and validation hooks: they must refuse before anything runs or is kept as valid.
    useLimits({ ...settings, maxInitialCount: MAX_INITIAL_COUNT }),
    settings.introspection ? undefined : useDisableIntrospection(),
    // Validation rules (Yoga's defer-stream plugin), and an onExecute hook that must take the directives out of an answer
    // that cannot come in parts before the budget is reserved and useJit runs; not in subgraph mode, where the router
    // plans @defer itself.
    settings.federation ? undefined : useIncrementalDelivery(),
    // An execution hook that must run before useJit executes, so an operation over budget sends nothing.
    useUpstreamBudget(),
    // onExecute, after useOperationRecords' (the operation's type) and after the budget: an operation refused runs nothing to count.
    useFieldUsage(),
    // Its span must be open around execution, before useJit runs the resolvers that make upstream calls.
    tracer ? useTracing({ tracer, traceCallerContext: settings.traceCallerContext }) : undefined,
    // Last of the execution hooks: it replaces execution itself, after every plugin above has had its onExecute.
    useJit(),
    // onExecuteDone hooks run in list order: shape errors are named before useUpstreamErrors adds siblings to them.
    useUpstreamShapeErrors(),
    useUpstreamErrors(),
  ];
}

/** What reads and amends the result and the response on the way out. */
function responsePlugins({ settings, observe }: PluginSources) {
  return [
    // onResultProcess hooks run in list order: request errors get their code before useRequestSummary reads the codes
    // (a client's mistake must not be logged as INTERNAL_SERVER_ERROR), and before Yoga derives the status from them.
    useRequestErrorCodes(),
    useRequestSummary({ onSummary: observe.onSummary }),
    settings.fieldSuggestions ? undefined : useHiddenSuggestions(),
    // onResponse hooks that set headers, before compression, which rebuilds the response. Yoga runs them for every
    // answer (/health and /ready too).
    useRequestId(),
    useCacheControl(),
    useSecurityHeaders(),
    settings.corsOrigins.length > 0 ? useCorsVary() : undefined,
    // Last: it compresses the final body, with every header already set.
    useCompression(settings),
  ];
}
