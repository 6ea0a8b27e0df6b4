import { useDisableIntrospection } from '@graphql-yoga/plugin-disable-introspection';
import type { Tracer, TracerProvider } from '@opentelemetry/api';
import { createYoga, type YogaServerInstance, type YogaServerOptions } from 'graphql-yoga';
import { AnswerFinisher, HeaderLines } from './answer/finish.js';
import { type Settings, servesGraphiQL, settingsWith } from './config/settings.js';
import { loadTrustedDocuments } from './config/trusted-documents.js';
import { type CallerContext, callerContext } from './context.js';
import type { ErrorCode } from './errors.js';
import type { GraphiQLSandbox } from './graphiql/options.js';
import { type HitPath, hitPath, type OnHit } from './hit-path/hit-path.js';
import {
  boundsDocument,
  carriesNoKey,
  countsOperation,
  finishes,
  forwardsHeaders,
  looksUp,
  namesOperation,
  showsItsCost,
  showsNoCalls,
  sumsUp,
  takesWholeResult,
} from './hit-path/steps.js';
import { createLogger, type Logger } from './observability/logger.js';
import { createMetrics, type Metrics, watchUpstream } from './observability/metrics.js';
import { type Observers, observers } from './observability/observers.js';
import { refusalSummary } from './observability/request-summary.js';
import { useAllowedMethods } from './plugins/use-allowed-methods.js';
import { useAnswerFinishing } from './plugins/use-answer-finishing.js';
import { useAutomaticPersistedQueries } from './plugins/use-automatic-persisted-queries.js';
import { useContentNegotiation } from './plugins/use-content-negotiation.js';
import { useCSRFPrevention } from './plugins/use-csrf-prevention.js';
import { useDocumentCache } from './plugins/use-document-cache.js';
import { useFieldUsage } from './plugins/use-field-usage.js';
import { useHiddenSuggestions } from './plugins/use-hidden-suggestions.js';
import { useIdempotency } from './plugins/use-idempotency.js';
import { useIncrementalDelivery } from './plugins/use-incremental-delivery.js';
import { useJit } from './plugins/use-jit.js';
import { useLimits } from './plugins/use-limits.js';
import { useOperationCost } from './plugins/use-operation-cost.js';
import { useOperationRecords } from './plugins/use-operation-records.js';
import { useRateLimit } from './plugins/use-rate-limit.js';
import { useReadiness } from './plugins/use-readiness.js';
import { useRequestErrorCodes } from './plugins/use-request-error-codes.js';
import { useRequestSummary } from './plugins/use-request-summary.js';
import { useResponseCache } from './plugins/use-response-cache.js';
import { useRootRedirect } from './plugins/use-root-redirect.js';
import { useTrustedDocuments } from './plugins/use-trusted-documents.js';
import { useUpstreamBudget } from './plugins/use-upstream-budget.js';
import { useUpstreamDebug } from './plugins/use-upstream-debug.js';
import { useUpstreamErrors } from './plugins/use-upstream-errors.js';
import { useUpstreamHeaders } from './plugins/use-upstream-headers.js';
import { useUpstreamShapeErrors } from './plugins/use-upstream-shape-errors.js';
import { MAX_INITIAL_COUNT, schema, subgraphSchema } from './schema/index.js';
import { CacheLookups } from './state/cache-lookups.js';
import { OperationCounter } from './state/operation-counter.js';
import { openSharedState, type SharedState } from './state/shared-state.js';
import { UpstreamClient } from './upstream/client.js';

/** What only a program can give a gateway; every other option is a setting of docs/configuration.md. */
export interface ProgramOptions {
  /** Request lines (info) and upstream-call lines (debug). @default none: nothing is logged */
  logger?: Logger | undefined;
  /** Makes a span per operation and upstream call, see src/observability/tracing.ts. @default none: no tracing */
  tracerProvider?: TracerProvider | undefined;
  /** The embedded sandbox, when it is the upstream: GraphiQL opens with its Authorization header and names its address in curl commands. @default none */
  graphiqlSandbox?: GraphiQLSandbox | undefined;
}

/**
 * Any setting (unset ones take their default for `production`), with the upstream's address
 * resolved, plus what only a program can pass. Process settings (port, host, workers, shutdown,
 * tracing export) are accepted so that the whole settings object can be passed; they are used by
 * src/server/start.ts and src/main.ts.
 */
export type GatewayOptions = Partial<Omit<Settings, 'upstreamUrl'>> & ProgramOptions & { upstreamUrl: URL };

/** A request the HTTP front answers itself, before Yoga (src/server/http-server.ts). */
export interface RequestBeforeYoga {
  method: string;
  headers: Pick<Headers, 'get'>;
  /** From its arrival to its answer. */
  durationMs: number;
}

/** One entry of the plugin list: a plugin, and what becomes of its work for a hit the hit path answers (`OnHit`). */
export interface PluginEntry {
  plugin: NonNullable<YogaServerOptions<Record<string, unknown>, CallerContext>['plugins']>[number];
  onHit: OnHit;
}

export interface Gateway {
  yoga: YogaServerInstance<Record<string, unknown>, CallerContext>;
  /**
   * For an answer the HTTP front writes before Yoga (a bad Host, 413, 415): finishes its header
   * lines as every answer's (`AnswerFinisher`), and logs and counts it as Yoga's answers are.
   */
  refusedBeforeYoga(request: RequestBeforeYoga, refusal: { status: number; code: ErrorCode }, lines: Record<string, string>): void;
  /** Read cache hits answered before Yoga (src/hit-path/); undefined without a read cache, or with a plugin on that turns it off. */
  hitPath: HitPath | undefined;
  /** The plugin list, in its order, each entry with what a hit does of it. */
  plugins: readonly PluginEntry[];
  /** What src/server/metrics-server.ts serves on METRICS_PORT. */
  metrics: Metrics;
  /** Resolves once the shared state's Redis is connected (at once without REDIS_URL); requests never wait for it. */
  stateConnected(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Yoga's `cors` while CORS is on: its CORS plugin answers every preflight (204), and sets no header,
 * since every answer, a preflight's too, is given its CORS headers where it is finished (`AnswerFinisher`).
 */
const PREFLIGHTS_ONLY = () => false as const;

/**
 * The GraphQL server in front of one upstream. The settings are checked here, against the same
 * rules as the environment's (SETTING_RULES), whatever their source. The schema is built once;
 * everything per caller lives in its context and its operation's record.
 */
export async function createGateway({
  logger = createLogger({ level: 'silent' }),
  tracerProvider,
  graphiqlSandbox,
  upstreamUrl,
  ...chosen
}: GatewayOptions): Promise<Gateway> {
  const settings = { ...settingsWith({ ...chosen, upstreamUrl }), upstreamUrl };
  // Read first: a bad manifest stops start-up before anything is opened.
  const trustedDocuments = settings.trustedDocuments === undefined ? undefined : loadTrustedDocuments(settings.trustedDocuments);
  const tracer = tracerProvider?.getTracer('vms-graphql-gateway');
  const metrics = createMetrics({ namesAreTrusted: trustedDocuments !== undefined, clientNames: settings.metricsClientNames });
  const observe = await observers({ logger, metrics, tracer });
  const client = new UpstreamClient({ settings, onCall: observe.onCall, around: observe.around });
  watchUpstream(metrics, client);
  const state = await openSharedState(settings, { logger, registry: metrics.registry });
  const finisher = new AnswerFinisher(settings);
  const sources: PluginSources = {
    settings,
    state,
    finisher,
    counter: state.operationLimiter ? new OperationCounter({ limiter: state.operationLimiter, ...settings }) : undefined,
    lookups: state.responseCache ? new CacheLookups(state.responseCache) : undefined,
    observe,
    tracer,
    optional: await optionalParts({ tracing: tracer !== undefined, graphiql: servesGraphiQL(settings) }),
    trustedDocuments,
  };
  const plugins = gatewayPlugins(sources);
  const yoga = createYoga<Record<string, unknown>, CallerContext>({
    schema: settings.federation ? subgraphSchema() : schema,
    context: callerContext(client, settings),
    graphqlEndpoint: '/graphql',
    landingPage: false,
    // Replaced by useDocumentCache, which bounds what it keeps in bytes and keeps only valid documents.
    parserAndValidationCache: false,
    logging: false,
    maskedErrors: { isDev: false },
    ...(sources.optional.graphiqlOptions?.(graphiqlSandbox) ?? { graphiql: false }),
    cors: finisher.cors.on ? PREFLIGHTS_ONLY : false,
    // The body limit is enforced in front of Yoga, by src/server/http-server.ts.
    maxRequestBodySize: false,
    // A JSON array of operations, answered with an array; the batch shares one upstream budget and deadline.
    batching: { limit: settings.maxBatchSize },
    plugins: plugins.map(({ plugin }) => plugin),
  });
  return {
    yoga,
    metrics,
    plugins,
    refusedBeforeYoga: (request, refusal, lines) => {
      const summary = refusalSummary(request, refusal);
      finisher.headers(request, new HeaderLines(lines), summary.requestId, []);
      observe.onSummary(summary);
    },
    hitPath: sources.lookups ? hitPath(plugins.map(({ onHit }) => onHit)) : undefined,
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
  /** What finishes every answer: Yoga's, the hit path's and the refusals before Yoga. */
  finisher: AnswerFinisher;
  /** The rate limit's count, shared by useRateLimit and the hit path; undefined when it is off. */
  counter: OperationCounter | undefined;
  /** The read cache's lookups, shared by useResponseCache and the hit path; undefined when it is off. */
  lookups: CacheLookups | undefined;
  observe: Observers;
  tracer: Tracer | undefined;
  optional: OptionalParts;
  trustedDocuments: ReadonlyMap<string, string> | undefined;
}

/**
 * The one ordered plugin list, in the order a request meets the plugins: the answers made before
 * any GraphQL work, the checks of the request, then what the operation meets as it is found,
 * parsed, validated and run, and last what amends the response. Envelop runs each hook in list
 * order, so the order is behaviour; a line says why a plugin stands where its first hook would not
 * put it. What each plugin does is its own docblock's business.
 *
 * Beside each plugin, `onHit` says what becomes of its work for a read cache hit the hit path
 * answers before Yoga (src/hit-path/): the step that does it there, made of the function the
 * plugin's hook calls (src/hit-path/steps.ts), or why a hit needs none of it, or why the hit path
 * is off while the plugin is on. The hit path runs those steps in this order.
 */
function gatewayPlugins(sources: PluginSources): PluginEntry[] {
  return [...answeredBeforeGraphQL(sources), ...requestChecks(), ...operationPlugins(sources), ...responsePlugins(sources)].filter(
    (entry) => entry !== undefined,
  );
}

/** A hit is a POST to /graphql: these answer other requests. */
const ANSWERS_ANOTHER_PATH = { skipped: 'it answers another path than /graphql, to which a hit is a POST' };
/** What a hit never reaches: it is neither parsed, validated nor run, and holds no error (only answers without one are kept). */
const NOT_RUN = { skipped: 'a hit is neither parsed, validated nor run' };

/** onRequest answers: the request never reaches parsing. */
function answeredBeforeGraphQL({ settings, optional: { useGraphiQLAssets } }: PluginSources): Array<PluginEntry | undefined> {
  return [
    { plugin: useReadiness(), onHit: ANSWERS_ANOTHER_PATH },
    // Outside production the root leads a person to GraphiQL; production keeps its 404, offering nothing to a scanner.
    servesGraphiQL(settings) && !settings.production ? { plugin: useRootRedirect(), onHit: ANSWERS_ANOTHER_PATH } : undefined,
    useGraphiQLAssets ? { plugin: useGraphiQLAssets(), onHit: ANSWERS_ANOTHER_PATH } : undefined,
  ];
}

/** The modules of features a setting turns on, each there only when its feature is on. */
interface OptionalParts {
  useTracing?: typeof import('./plugins/use-tracing.js').useTracing;
  useGraphiQLAssets?: typeof import('./plugins/use-graphiql-assets.js').useGraphiQLAssets;
  graphiqlOptions?: typeof import('./graphiql/options.js').graphiqlOptions;
}

/**
 * Loads what tracing and GraphiQL take, at start-up and only when they are on: a gateway without
 * them never holds their code (and OpenTelemetry's), and a request never waits for a module.
 */
async function optionalParts(on: { tracing: boolean; graphiql: boolean }): Promise<OptionalParts> {
  const [tracing, assets, options] = await Promise.all([
    on.tracing ? import('./plugins/use-tracing.js') : undefined,
    on.graphiql ? import('./plugins/use-graphiql-assets.js') : undefined,
    on.graphiql ? import('./graphiql/options.js') : undefined,
  ]);
  return { useTracing: tracing?.useTracing, useGraphiQLAssets: assets?.useGraphiQLAssets, graphiqlOptions: options?.graphiqlOptions };
}

/** The request to the GraphQL endpoint, before anything of its operations is read. */
function requestChecks(): PluginEntry[] {
  return [
    // The first onRequestParse hook: the records it opens are there for every plugin below, and for their refusals.
    { plugin: useOperationRecords(), onHit: namesOperation },
    // The first check: a method the endpoint does not serve is 405 whatever headers come with it (the CSRF check would say 403).
    { plugin: useAllowedMethods(), onHit: { skipped: 'a hit is a POST, which the endpoint serves' } },
    // Before anything is parsed or run: an answer that could not be written in an accepted type is refused first.
    { plugin: useContentNegotiation(), onHit: takesWholeResult },
    // Before parsing, so that a cross-site simple request is refused before any work is done for it.
    {
      plugin: useCSRFPrevention(),
      onHit: { skipped: 'a hit carries a Bearer credential (looksUp admits no other), which the check lets by' },
    },
  ];
}

/** What an operation meets from its parameters to its execution, in that order. */
function operationPlugins({
  settings,
  counter,
  lookups,
  state,
  tracer,
  optional: { useTracing },
  trustedDocuments,
}: PluginSources): Array<PluginEntry | undefined> {
  return [
    // onParams and the first onParse: an oversized document is refused before any plugin registers or parses
    // it, and a kept one skips the parsing (and its token count) as Yoga's own cache did.
    { plugin: useDocumentCache(settings), onHit: boundsDocument(settings.maxDocumentBytes) },
    // onParams, before anything is registered or answered from the cache; a document too large was refused for nothing already.
    counter ? { plugin: useRateLimit({ counter, ...settings }), onHit: countsOperation(counter) } : undefined,
    // onParams hooks: they replace the sent document (or refuse) before Yoga parses it.
    trustedDocuments
      ? {
          plugin: useTrustedDocuments({ documents: trustedDocuments }),
          onHit: { off: 'a hit read before Yoga would be a document sent as text' },
        }
      : undefined,
    trustedDocuments || !state.persistedQueries
      ? undefined
      : {
          plugin: useAutomaticPersistedQueries({ store: state.persistedQueries }),
          onHit: { skipped: 'a hit sends only query, operationName and variables: no persisted query' },
        },
    // onParams, before useResponseCache, which keys on the headers it sends upstream.
    { plugin: useUpstreamHeaders(settings), onHit: forwardsHeaders(settings.forwardHeaders) },
    // onParams, before useResponseCache, which keeps no answer that shows its calls; its onExecutionResult before it too.
    { plugin: useUpstreamDebug(settings), onHit: showsNoCalls },
    // After them, so that it keys on the document's text, whichever way it came; a hit skips everything below.
    lookups ? { plugin: useResponseCache({ lookups, ...settings }), onHit: looksUp(lookups) } : undefined,
    // Parsing and validation hooks: they must refuse before anything runs or is kept as valid.
    { plugin: useLimits({ ...settings, maxInitialCount: MAX_INITIAL_COUNT }), onHit: NOT_RUN },
    settings.introspection ? undefined : { plugin: useDisableIntrospection(), onHit: NOT_RUN },
    // Validation rules (Yoga's defer-stream plugin), and an onExecute hook that must take the directives out of an answer
    // that cannot come in parts before the budget is reserved and useJit runs; not in subgraph mode, where the router
    // plans @defer itself.
    settings.federation ? undefined : { plugin: useIncrementalDelivery(), onHit: NOT_RUN },
    // An execution hook that must run before useJit executes, so an operation over budget sends nothing.
    { plugin: useUpstreamBudget({ counter }), onHit: NOT_RUN },
    // onExecute after the budget (an operation refused there claims no key) and before useFieldUsage (a mutation refused
    // or replayed here runs nothing to count); its onParams after useIncrementalDelivery's, whose parts it turns off.
    { plugin: useIdempotency({ keys: state.idempotencyKeys, ...settings }), onHit: carriesNoKey },
    // onExecute, after useOperationRecords' (the operation's type) and after the budget: an operation refused runs nothing to count.
    { plugin: useFieldUsage(), onHit: NOT_RUN },
    // Its span must be open around execution, before useJit runs the resolvers that make upstream calls.
    tracer && useTracing
      ? {
          plugin: useTracing({ tracer, traceCallerContext: settings.traceCallerContext }),
          onHit: { off: 'every operation has its span, which opens around it in Yoga' },
        }
      : undefined,
    // Last of the execution hooks: it replaces execution itself, after every plugin above has had its onExecute.
    { plugin: useJit(), onHit: NOT_RUN },
    // onExecuteDone hooks run in list order: shape errors are named before useUpstreamErrors adds siblings to them.
    { plugin: useUpstreamShapeErrors(), onHit: NOT_RUN },
    { plugin: useUpstreamErrors(), onHit: NOT_RUN },
  ];
}

/** What reads and amends the result and the response on the way out. */
function responsePlugins({ settings, observe, finisher }: PluginSources): Array<PluginEntry | undefined> {
  return [
    // onResultProcess hooks run in list order: request errors get their code before useRequestSummary reads the codes
    // (a client's mistake must not be logged as INTERNAL_SERVER_ERROR), and before Yoga derives the status from them.
    { plugin: useRequestErrorCodes(), onHit: { skipped: 'a hit holds no error: only answers without one are kept' } },
    // onResultProcess, once request errors have their codes, so that a refusal shows its cost (none) too.
    { plugin: useOperationCost(settings), onHit: showsItsCost(settings.costShown) },
    { plugin: useRequestSummary({ onSummary: observe.onSummary }), onHit: sumsUp(observe.onSummary) },
    settings.fieldSuggestions
      ? undefined
      : { plugin: useHiddenSuggestions(), onHit: { skipped: 'a hit holds no error: only answers without one are kept' } },
    // Last: every answer is finished once every plugin above has amended it. Yoga runs it for every answer (/health and /ready too).
    { plugin: useAnswerFinishing(finisher), onHit: finishes(finisher) },
  ];
}
