import type { z } from 'zod';
import {
  ANY_ORIGIN,
  bytes,
  flag,
  forwardedHeaderList,
  httpUrl,
  isLoopback,
  keyPrefix,
  milliseconds,
  nameList,
  oneOf,
  originList,
  password,
  pathList,
  redisAddressList,
  redisUrl,
  returnedHeaderList,
  revision,
  secret,
  sentinelMasterName,
  text,
  upstreamBaseUrl,
  userAgent,
  wholeNumber,
  wholeSeconds,
} from './parsers.js';

/** The headings of docs/configuration.md, in order. */
export const SECTIONS = {
  server: 'Server',
  upstream: 'Upstream',
  breaker: 'Circuit breaker',
  limits: 'Operation limits',
  clients: 'Clients and browsers',
  state: 'Shared state: read cache, rate limits, persisted queries, idempotency keys',
  operations: 'Logs and traces',
} as const;

/** What `NODE_ENV` decides; production-dependent defaults are functions of it. */
export interface Environment {
  production: boolean;
}

type Section = keyof typeof SECTIONS;

interface Setting<T, D extends T | undefined, S extends Section = Section> {
  /** The environment variable. */
  env: string;
  /** Parser of the variable's text, with its bounds; its `description` lists the accepted values. */
  parse: z.ZodType<T, string>;
  /** The value while the variable is unset. */
  default: D | ((environment: Environment) => D);
  /** How the default reads in the docs when the value alone does not say it. */
  defaultText?: string;
  /** One line of documentation. */
  doc: string;
  /** Its heading in docs/configuration.md, and the part of the settings the component it configures takes whole. */
  section: S;
}

/** Declares one setting; the type parameters check that the default fits the parser and keep the section's name. */
const setting = <T, D extends T | undefined = T, const S extends Section = Section>(spec: Setting<T, D, S>) => spec;

/** What RATE_LIMIT counts. */
export type RateLimitUnit = 'calls' | 'operations';

/** Which answers carry what their operations cost. */
export type CostShown = 'always' | 'asked';

const whenNotProduction = ({ production }: Environment) => !production;
const NOT_IN_PRODUCTION = '`true`, `false` when `NODE_ENV=production`';

/**
 * Every setting of the gateway, each declared once: the key is its name in `Settings` (and so in
 * `GatewayOptions`), the entry its variable, parser, default and documentation. Everything else
 * is derived from this table: the environment parsing (`loadSettings`), the defaults, the option
 * types and docs/configuration.md (`npm run docs:write`; a test fails when it is stale).
 */
export const SETTINGS = {
  production: setting({
    env: 'NODE_ENV',
    // A typo such as `prod` must not quietly mean development, with its open defaults.
    parse: oneOf(['production', 'development', 'test'])
      .transform((value) => value === 'production')
      .describe('`production`, `development`, `test`'),
    default: false,
    defaultText: 'unset: development',
    doc: '`production` writes JSON logs even in a terminal, needs `UPSTREAM_URL`, and turns GraphiQL, introspection, suggestions and the any-origin CORS default off.',
    section: 'server',
  }),
  port: setting({
    env: 'PORT',
    parse: wholeNumber(0, 65535, 'a port number'),
    default: 4000,
    doc: 'TCP port of `/graphql`, `/health` and `/ready`; `0` picks a free one.',
    section: 'server',
  }),
  metricsPort: setting({
    env: 'METRICS_PORT',
    parse: wholeNumber(0, 65535, 'a port number'),
    // The OpenTelemetry Prometheus exporter's port: the one scrape configs expect of a Node service.
    default: 9464,
    doc: 'TCP port of `/metrics` alone, kept off the public port so that only the scraper reaches it; `0` picks a free one.',
    section: 'server',
  }),
  // A development gateway (GraphiQL, the sandbox that takes any token, /metrics) stays on this
  // machine; a container sets HOST itself (the Dockerfile, deploy/configmap.yaml).
  host: setting({
    env: 'HOST',
    parse: text('interface address'),
    default: ({ production }) => (production ? '0.0.0.0' : '127.0.0.1'),
    defaultText: '`127.0.0.1`, `0.0.0.0` when `NODE_ENV=production`',
    doc: 'Interface both ports listen on: loopback by default outside production, so that only this machine reaches the sandbox and GraphiQL.',
    section: 'server',
  }),
  workers: setting({
    env: 'WORKERS',
    parse: wholeNumber(1, 64),
    default: 1,
    doc: 'Worker processes sharing the port (node:cluster); see [operations](operations.md#scaling) before raising it.',
    section: 'server',
  }),
  shutdownTimeoutMs: setting({
    env: 'SHUTDOWN_TIMEOUT_MS',
    parse: milliseconds(0, 600_000),
    default: 10_000,
    doc: 'After SIGTERM, SIGINT or SIGHUP, how long requests in flight may run before their connections are closed.',
    section: 'server',
  }),
  maxBodyBytes: setting({
    env: 'MAX_BODY_BYTES',
    parse: bytes(1, 100 * 1024 * 1024),
    default: 1024 * 1024,
    doc: 'Largest request body; a larger one is answered 413 `PAYLOAD_TOO_LARGE` before it is read.',
    section: 'server',
  }),
  // Behind a load balancer the gateway must keep an idle connection longer than the balancer does
  // (60 s on AWS ALB, nginx and most ingresses), or the balancer reuses a socket the gateway is closing.
  keepAliveTimeoutMs: setting({
    env: 'KEEP_ALIVE_TIMEOUT_MS',
    parse: milliseconds(100, 600_000),
    default: 65_000,
    doc: 'How long an idle keep-alive connection stays open between requests; keep it above the load balancer’s idle timeout.',
    section: 'server',
  }),
  headersTimeoutMs: setting({
    env: 'HEADERS_TIMEOUT_MS',
    parse: milliseconds(100, 600_000),
    default: 10_000,
    doc: 'Time a client has to send a request’s headers, counted from its first byte or from the connection; a new connection that sends nothing is closed after it too.',
    section: 'server',
  }),
  requestTimeoutMs: setting({
    env: 'REQUEST_TIMEOUT_MS',
    parse: milliseconds(100, 600_000),
    default: 30_000,
    doc: 'Time a client has to send a whole request, body included; a slow body is answered 408.',
    section: 'server',
  }),
  // As long as a client has to send its request (REQUEST_TIMEOUT_MS). Any byte taken restarts it,
  // so a client reading at any usable pace never meets it (docs/security.md, section "Clients that do not read").
  sendTimeoutMs: setting({
    env: 'SEND_TIMEOUT_MS',
    parse: milliseconds(100, 600_000),
    default: 30_000,
    doc: 'How long an answer’s bytes may wait for a client that takes none of them; checked once per period, so past one to two of them the connection is reset, counted in `gateway_http_connections_closed_total`.',
    section: 'server',
  }),
  // The gateway's answers are tens of kilobytes (15 KB for apiKeys(first: 100) with every field):
  // room for dozens a client pipelines, while one that reads nothing holds at most this beyond the
  // answer being written. At least 64 KiB, clear of Node's 16 KiB high-water mark, which the writes
  // of a stream may reach before they wait for the client.
  maxUnreadBytes: setting({
    env: 'MAX_UNREAD_BYTES',
    parse: bytes(64 * 1024, 1024 * 1024 * 1024),
    default: 1024 * 1024,
    doc: 'Bytes of answers a connection may hold that its client has not taken; a write that finds more waiting resets the connection, counted in `gateway_http_connections_closed_total`. One answer is always written whole.',
    section: 'server',
  }),
  maxConnections: setting({
    env: 'MAX_CONNECTIONS',
    parse: wholeNumber(1, 1_000_000),
    default: 4_096,
    doc: 'Open client connections per process; a connection past it is closed at once.',
    section: 'server',
  }),
  // An answer under 1 KiB fits in one TCP segment with its headers: compressing it saves no round trip, only bytes, for CPU.
  compressionMinBytes: setting({
    env: 'COMPRESSION_MIN_BYTES',
    parse: bytes(0, 2 ** 31 - 1),
    default: 1024,
    doc: 'Smallest answer that is gzipped for callers whose `Accept-Encoding` lists gzip; `0` compresses every answer.',
    section: 'server',
  }),

  upstreamUrl: setting({
    env: 'UPSTREAM_URL',
    parse: upstreamBaseUrl,
    default: undefined,
    defaultText: 'unset: the embedded sandbox, if `SANDBOX` allows it',
    doc: 'Base address of the REST API, without user or password. It never appears in logs, metrics or answers.',
    section: 'upstream',
  }),
  sandbox: setting({
    env: 'SANDBOX',
    parse: flag,
    default: whenNotProduction,
    defaultText: NOT_IN_PRODUCTION,
    doc: 'With `UPSTREAM_URL` unset, serve the embedded demo upstream, which takes any bearer token; `false` makes a missing `UPSTREAM_URL` an error. Logged at warn in production.',
    section: 'upstream',
  }),
  upstreamAllowHttp: setting({
    env: 'UPSTREAM_ALLOW_HTTP',
    parse: flag,
    default: false,
    doc: 'Accept a plain `http://` `UPSTREAM_URL` to a host other than loopback in production, where bearer tokens would cross the network in clear: only where a mesh encrypts the hop.',
    section: 'upstream',
  }),
  upstreamTimeoutMs: setting({
    env: 'UPSTREAM_TIMEOUT_MS',
    parse: milliseconds(1, 600_000),
    default: 10_000,
    doc: 'One upstream call, from connect to the last body byte, retries included.',
    section: 'upstream',
  }),
  requestDeadlineMs: setting({
    env: 'REQUEST_DEADLINE_MS',
    parse: milliseconds(1, 600_000),
    default: 15_000,
    doc: 'The whole GraphQL operation, all its upstream calls together; each call gets the shorter of its timeout and the time left.',
    section: 'upstream',
  }),
  upstreamMaxBytes: setting({
    env: 'UPSTREAM_MAX_BYTES',
    parse: bytes(1024, 1024 * 1024 * 1024),
    default: 10 * 1024 * 1024,
    doc: 'Largest upstream response body, and the most the bodies of one HTTP request may hold together; past it the call is answered `UPSTREAM_BAD_RESPONSE`.',
    section: 'upstream',
  }),
  maxUpstreamCalls: setting({
    env: 'MAX_UPSTREAM_CALLS',
    parse: wholeNumber(1, 1_000),
    default: 10,
    doc: 'Upstream requests one GraphQL operation may cause (aliases × pages), checked before execution and at each call.',
    section: 'upstream',
  }),
  upstreamUserAgent: setting({
    env: 'UPSTREAM_USER_AGENT',
    parse: userAgent,
    // The gateway's name and version are package.json's, which src/server/build-info.ts reads: startGateway fills them in.
    default: undefined,
    defaultText: '`vms-graphql-gateway/<version>`, `package.json`’s name and version',
    doc: 'The `User-Agent` of every upstream call, which names the gateway in the REST API’s logs.',
    section: 'upstream',
  }),
  upstreamRetries: setting({
    env: 'UPSTREAM_RETRIES',
    parse: wholeNumber(0, 2),
    default: 2,
    doc: 'Retries of a failed GET (502, 503, 504 or a connection error); writes are never retried.',
    section: 'upstream',
  }),
  forwardHeaders: setting({
    env: 'FORWARD_HEADERS',
    parse: forwardedHeaderList,
    default: [],
    defaultText: 'none',
    doc: 'Client request headers sent to the REST API with every call, e.g. `accept-language, x-tenant-id=x-vms-tenant`; a value with a control character or over 1 KiB is dropped and counted ([clients](clients.md#headers-to-and-from-the-rest-api)).',
    section: 'upstream',
  }),
  returnHeaders: setting({
    env: 'RETURN_HEADERS',
    parse: returnedHeaderList,
    default: [],
    defaultText: 'none',
    doc: 'REST API answer headers returned to the client, one line each, merged across the calls of a request by their meaning (rate limits, caching, deprecation, links) ([clients](clients.md#headers-to-and-from-the-rest-api)).',
    section: 'upstream',
  }),
  upstreamRetryMaxDelayMs: setting({
    env: 'UPSTREAM_RETRY_MAX_DELAY_MS',
    parse: milliseconds(0, 60_000),
    default: 2_000,
    doc: 'Longest wait before a retry; a longer `Retry-After` is not waited for.',
    section: 'upstream',
  }),
  breakerErrorPercent: setting({
    env: 'BREAKER_ERROR_PERCENT',
    parse: wholeNumber(1, 99),
    default: 50,
    doc: 'Share of the window’s calls, in percent, that must have failed before the circuit opens ([rules](security.md#circuit-breaker)).',
    section: 'breaker',
  }),
  breakerMinCalls: setting({
    env: 'BREAKER_MIN_CALLS',
    parse: wholeNumber(1, 10_000),
    default: 5,
    doc: 'Calls the window must hold before the circuit may open.',
    section: 'breaker',
  }),
  breakerMinCallers: setting({
    env: 'BREAKER_MIN_CALLERS',
    parse: wholeNumber(1, 1_000),
    default: 3,
    doc: 'Distinct bearer tokens the window’s failures must come from before the circuit may open.',
    section: 'breaker',
  }),
  breakerWindowMs: setting({
    env: 'BREAKER_WINDOW_MS',
    parse: milliseconds(1_000, 600_000),
    default: 10_000,
    doc: 'Length of the circuit breaker’s rolling window.',
    section: 'breaker',
  }),
  breakerResetMs: setting({
    env: 'BREAKER_RESET_MS',
    parse: milliseconds(100, 600_000),
    default: 10_000,
    doc: 'How long an open circuit refuses calls before it lets one probe through.',
    section: 'breaker',
  }),

  // The fullest introspection query is about 2 KiB and real operations a few hundred bytes; an
  // inline 16 KiB certificate still fits. What a caller can make the gateway hold grows with it.
  maxDocumentBytes: setting({
    env: 'MAX_DOCUMENT_BYTES',
    parse: bytes(1024, 1024 * 1024),
    default: 64 * 1024,
    doc: 'Largest GraphQL document (the query text, UTF-8), refused `LIMIT_EXCEEDED` before it is parsed.',
    section: 'limits',
  }),
  // Room for hundreds of ordinary operations, each held with its syntax tree (about 400 bytes a token).
  documentCacheBytes: setting({
    env: 'DOCUMENT_CACHE_BYTES',
    parse: bytes(0, 1024 * 1024 * 1024),
    default: 16 * 1024 * 1024,
    doc: 'Memory for documents kept parsed and validated between requests, least recently used dropped first; only valid documents are kept. `0` keeps none.',
    section: 'limits',
  }),
  maxDepth: setting({
    env: 'MAX_DEPTH',
    parse: wholeNumber(1, 1_000),
    default: 8,
    doc: 'Selection depth of an operation.',
    section: 'limits',
  }),
  maxAliases: setting({
    env: 'MAX_ALIASES',
    parse: wholeNumber(0, 1_000),
    default: 15,
    doc: 'Aliases in an operation.',
    section: 'limits',
  }),
  maxTokens: setting({
    env: 'MAX_TOKENS',
    parse: wholeNumber(10, 1_000_000),
    default: 1_000,
    doc: 'Lexical tokens in the document, counted while parsing.',
    section: 'limits',
  }),
  maxDirectives: setting({
    env: 'MAX_DIRECTIVES',
    parse: wholeNumber(0, 1_000),
    default: 10,
    doc: 'Directives in an operation.',
    section: 'limits',
  }),
  // Relay's @stream_connection uses two (edges streamed, pageInfo deferred): room for two such lists.
  maxIncrementalDirectives: setting({
    env: 'MAX_INCREMENTAL_DIRECTIVES',
    parse: wholeNumber(0, 100),
    default: 4,
    doc: '`@defer` and `@stream` directives in an operation, the fragments it spreads included; `0` refuses both.',
    section: 'limits',
  }),
  maxCost: setting({
    env: 'MAX_COST',
    parse: wholeNumber(1, 10_000_000),
    default: 20_000,
    doc: 'Cost of an operation: 2 per object field, 1 per scalar, × 1.5 per level, × `first` for lists.',
    section: 'limits',
  }),
  introspection: setting({
    env: 'INTROSPECTION',
    parse: flag,
    default: whenNotProduction,
    defaultText: NOT_IN_PRODUCTION,
    doc: 'Answer `__schema` and `__type` queries; clients can use `schema.graphql` instead.',
    section: 'limits',
  }),
  fieldSuggestions: setting({
    env: 'FIELD_SUGGESTIONS',
    parse: flag,
    default: whenNotProduction,
    defaultText: NOT_IN_PRODUCTION,
    doc: 'Keep graphql-js’ “Did you mean …?” hints; when off they read `[Suggestion hidden]`.',
    section: 'limits',
  }),

  graphiql: setting({
    env: 'GRAPHIQL',
    parse: flag,
    default: whenNotProduction,
    defaultText: NOT_IN_PRODUCTION,
    doc: 'Serve GraphiQL to browsers on `GET /graphql`, from the gateway’s own assets; never while `TRUSTED_DOCUMENTS` is set, where GraphiQL could run nothing (it sends query text), and the start-up banner says so.',
    section: 'clients',
  }),
  debugUpstreamKey: setting({
    env: 'DEBUG_UPSTREAM_KEY',
    parse: secret,
    default: undefined,
    defaultText: 'unset: in production no request sees its upstream calls',
    doc: 'The key a request gives in `X-Debug-Upstream` (`1; key=…`) to see its upstream calls in production; outside production none is needed ([clients](clients.md#debugging-a-result)).',
    section: 'clients',
  }),
  costShown: setting<CostShown, CostShown, 'clients'>({
    env: 'COST_SHOWN',
    parse: oneOf(['always', 'asked'] as const),
    default: ({ production }) => (production ? 'asked' : 'always'),
    defaultText: '`always`, `asked` when `NODE_ENV=production`',
    doc: 'Which answers carry `extensions.cost`, what each operation cost in REST calls: `always`, or those a request asks for with `X-Cost: 1` or sees its upstream calls ([clients](clients.md#what-an-operation-costs)).',
    section: 'clients',
  }),
  federation: setting({
    env: 'FEDERATION',
    parse: flag,
    default: false,
    doc: 'Serve the schema as a Federation 2 subgraph for a router (`_service`, `_entities`, `@key`); off, the schema is exactly `schema.graphql` ([federation](federation.md)).',
    section: 'clients',
  }),
  maxBatchSize: setting({
    env: 'MAX_BATCH_SIZE',
    parse: wholeNumber(1, 100),
    default: 10,
    doc: 'Operations in one batched request (a JSON array); more is answered 413. The batch shares one `MAX_UPSTREAM_CALLS` and one `REQUEST_DEADLINE_MS`.',
    section: 'clients',
  }),
  apqStoreBytes: setting({
    env: 'APQ_STORE_BYTES',
    parse: bytes(0, 1024 * 1024 * 1024),
    default: 8 * 1024 * 1024,
    doc: 'Memory for automatic persisted queries registered by clients (texts that passed validation, with their hashes and the store’s own share), least recently used dropped first; `0` turns APQ off. Off whenever `TRUSTED_DOCUMENTS` is set.',
    section: 'clients',
  }),
  trustedDocuments: setting({
    env: 'TRUSTED_DOCUMENTS',
    parse: pathList,
    default: undefined,
    defaultText: 'unset: any operation runs',
    doc: 'Persisted-documents manifests, files or folders of them; when set, only their operations run, sent by `documentId` ([clients](clients.md#trusted-documents)).',
    section: 'clients',
  }),
  corsOrigins: setting({
    env: 'CORS_ORIGINS',
    parse: originList,
    default: ({ production }) => (production ? [] : [ANY_ORIGIN]),
    defaultText: '`*`, none when `NODE_ENV=production`',
    doc: 'Browser origins allowed to call, exact (scheme, host and port), `https://*.example.com` for its subdomains, or `*` for any ([clients](clients.md#browser-apps)).',
    section: 'clients',
  }),
  corsAllowCredentials: setting({
    env: 'CORS_ALLOW_CREDENTIALS',
    parse: flag,
    default: false,
    doc: 'Answer `Access-Control-Allow-Credentials: true` to listed origins, for apps whose HTTP client sends `credentials: include`; never with `CORS_ORIGINS=*`. Cookies still authenticate nothing.',
    section: 'clients',
  }),

  // The Redis the replicas share is named by one of three settings, one per topology (SETTING_RULES
  // refuses two): one server, a primary that Sentinels fail over, or a Redis Cluster.
  redisUrl: setting({
    env: 'REDIS_URL',
    parse: redisUrl,
    default: undefined,
    defaultText: 'unset: every store in this process',
    doc: 'One Redis server, where the read cache, the persisted queries and the rate-limit counters live, shared by every replica and worker ([shared state](shared-state.md)). Its password is never logged.',
    section: 'state',
  }),
  redisSentinels: setting({
    env: 'REDIS_SENTINELS',
    parse: redisAddressList,
    default: undefined,
    defaultText: 'unset',
    doc: 'Instead of `REDIS_URL`: Sentinels that name the primary of `REDIS_SENTINEL_MASTER`, which the gateway follows through a failover ([topologies](shared-state.md#redis-without-a-single-point-of-failure)).',
    section: 'state',
  }),
  redisSentinelMaster: setting({
    env: 'REDIS_SENTINEL_MASTER',
    parse: sentinelMasterName,
    default: undefined,
    defaultText: 'unset',
    doc: 'The name the Sentinels of `REDIS_SENTINELS` monitor the primary under (`sentinel monitor <name> …`).',
    section: 'state',
  }),
  redisClusterNodes: setting({
    env: 'REDIS_CLUSTER_NODES',
    parse: redisAddressList,
    default: undefined,
    defaultText: 'unset',
    doc: 'Instead of `REDIS_URL`: nodes of a Redis Cluster (cluster mode enabled), from which the gateway learns the others and their slots.',
    section: 'state',
  }),
  redisPassword: setting({
    env: 'REDIS_PASSWORD',
    parse: password,
    default: undefined,
    defaultText: 'unset: no password',
    doc: 'Password of the Redis nodes of `REDIS_SENTINELS` (and of its Sentinels) or of `REDIS_CLUSTER_NODES`; `REDIS_URL` holds its own. Never logged.',
    section: 'state',
  }),
  redisKeyPrefix: setting({
    env: 'REDIS_KEY_PREFIX',
    parse: keyPrefix,
    default: 'vms-gateway:',
    doc: 'Prefix of every key the gateway writes to Redis, so that several deployments can share one.',
    section: 'state',
  }),
  // Redis answers in well under a millisecond on a healthy network: a command that takes longer than
  // this is a Redis in trouble, and the request goes on without it.
  redisCommandTimeoutMs: setting({
    env: 'REDIS_COMMAND_TIMEOUT_MS',
    parse: milliseconds(1, 10_000),
    // Above the slowest command measured on a busy 2-core machine (440 ms; docs/shared-state.md#the-command-timeout).
    default: 500,
    doc: 'Longest wait for one Redis command; past it the store answers as if Redis were down (a cache miss, the counter of this replica), and Redis is probed before it is held lost ([shared state](shared-state.md#the-command-timeout)).',
    section: 'state',
  }),
  // Off by default: the upstream changes behind the gateway's back (an admin console, another app),
  // and every second of time to live is a second a caller may see a list that is no longer true.
  cacheTtlMs: setting({
    env: 'CACHE_TTL_MS',
    parse: milliseconds(0, 3_600_000),
    default: 0,
    doc: 'How long a caller’s read is answered again from the cache, without an upstream call; `0` turns the cache off. Each caller has its own entries; a mutation drops its caller’s.',
    section: 'state',
  }),
  cacheBytes: setting({
    env: 'CACHE_BYTES',
    parse: bytes(1024 * 1024, 1024 * 1024 * 1024),
    default: 32 * 1024 * 1024,
    doc: 'Memory for cached answers when they are kept in this process (no Redis is set), least recently used dropped first; an answer above a 64th of it is not cached.',
    section: 'state',
  }),
  // Ten REST calls (or operations) a second, sustained over a minute, with the whole minute's worth as
  // a burst: far above what a person's browser sends, far below what a runaway loop does.
  rateLimit: setting({
    env: 'RATE_LIMIT',
    parse: wholeNumber(0, 1_000_000),
    default: 600,
    doc: 'What one caller may spend per window, in `RATE_LIMIT_UNIT`s (every operation of a batch counts); more is answered 429 `RATE_LIMITED`. `0` turns the limit off. Formerly `RATE_LIMIT_OPERATIONS`, still read with a warning.',
    section: 'state',
  }),
  rateLimitUnit: setting<RateLimitUnit, RateLimitUnit, 'state'>({
    env: 'RATE_LIMIT_UNIT',
    parse: oneOf(['calls', 'operations'] as const),
    default: 'calls',
    doc: 'What `RATE_LIMIT` counts: `calls`, the REST calls an operation is estimated to make, charged before it runs and the unmade ones given back after it; or `operations`, each operation one whatever it costs ([shared state](shared-state.md#rate-limits)).',
    section: 'state',
  }),
  rateLimitWindowMs: setting({
    env: 'RATE_LIMIT_WINDOW_MS',
    parse: wholeSeconds(1_000, 3_600_000),
    default: 60_000,
    doc: 'The window `RATE_LIMIT` counts over, in whole seconds.',
    section: 'state',
  }),
  trustProxyHops: setting({
    env: 'TRUST_PROXY_HOPS',
    parse: wholeNumber(0, 10),
    default: 0,
    doc: 'Proxies in front of the gateway whose `X-Forwarded-For` entries are believed; a caller without a token is told apart by the address that many hops back (`0`: the connection’s own address).',
    section: 'state',
  }),
  // A day, as payment APIs keep theirs: longer than any client retries one user action. From a second
  // up, so that a test can see a key expire.
  idempotencyTtlMs: setting({
    env: 'IDEMPOTENCY_TTL_MS',
    parse: milliseconds(1_000, 30 * 86_400_000),
    default: 86_400_000,
    doc: 'How long a mutation’s `Idempotency-Key` is remembered after its first answer: its retry within that time gets that answer again, never a second write ([shared state](shared-state.md#idempotency-keys)).',
    section: 'state',
  }),
  idempotencyStoreBytes: setting({
    env: 'IDEMPOTENCY_STORE_BYTES',
    parse: bytes(1024 * 1024, 1024 * 1024 * 1024),
    default: 16 * 1024 * 1024,
    doc: 'Memory for idempotency keys and their answers when they are kept in this process (no Redis is set), least recently used forgotten first.',
    section: 'state',
  }),

  logLevel: setting({
    env: 'LOG_LEVEL',
    parse: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    default: 'info',
    doc: 'Lowest level written; `debug` adds one line per upstream call.',
    section: 'operations',
  }),
  otlpEndpoint: setting({
    env: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    parse: httpUrl,
    default: undefined,
    defaultText: 'unset: tracing off',
    doc: 'OTLP/HTTP collector base address; spans go to `<endpoint>/v1/traces`. The other `OTEL_EXPORTER_OTLP_*` variables are honoured too.',
    section: 'operations',
  }),
  traceCallerContext: setting({
    env: 'TRACE_CALLER_CONTEXT',
    parse: flag,
    default: true,
    doc: 'Continue a caller’s W3C `traceparent`, so a browser’s trace runs through the gateway to the upstream; `false` starts every trace at the gateway, for a public gateway.',
    section: 'operations',
  }),
  // Callers name themselves: first come, first labelled, would let 20 junk names sent with any accepted
  // token push every real app into `other` until a restart. Production labels only the names listed.
  metricsClientNames: setting({
    env: 'METRICS_CLIENT_NAMES',
    parse: nameList,
    default: ({ production }): string[] | undefined => (production ? [] : undefined),
    defaultText: 'unset: none when `NODE_ENV=production`, the first 20 seen otherwise',
    doc: 'Client names (`apollographql-client-name`, `graphql-client-name`) counted under their own `client_name` label; others count as `other` ([operations](operations.md#client-names-in-production)).',
    section: 'operations',
  }),
  revision: setting({
    env: 'GATEWAY_REVISION',
    parse: revision,
    default: 'unknown',
    doc: 'The source revision the gateway was built from, in `gateway_build_info` and the start-up line; the image sets it from its build (`scripts/build-image.sh` passes the git commit), so leave it to the image ([operations](operations.md#what-the-process-says-about-itself)).',
    section: 'operations',
  }),
  serviceName: setting({
    env: 'OTEL_SERVICE_NAME',
    parse: text('any text'),
    default: 'vms-graphql-gateway',
    doc: '`service.name` on every span.',
    section: 'operations',
  }),
};

/**
 * Variables renamed, by their old name: read as the new one while it is unset, with the warning of
 * RETIRED_VARIABLES; set beside the new one to another value, a start refuses them.
 */
export const RENAMED_VARIABLES: Readonly<Record<string, string>> = { RATE_LIMIT_OPERATIONS: 'RATE_LIMIT' };

/**
 * Variables the gateway read once and reads no more, or reads under another name, each with what to do. What they configured
 * holds without them, so a deployment that still sets one keeps working; it is named in a warning
 * at start-up, and listed in docs/configuration.md.
 */
export const RETIRED_VARIABLES: Readonly<Record<string, string>> = {
  RATE_LIMIT_OPERATIONS:
    'RATE_LIMIT_OPERATIONS is read as RATE_LIMIT, in the unit RATE_LIMIT_UNIT says (REST calls unless it says operations): rename it.',
  CORS_ALLOWED_HEADERS:
    'CORS_ALLOWED_HEADERS is no longer read: a listed origin may send every request header its preflight asks for, so the headers it listed are allowed without it; unset it.',
};

/**
 * Whether GraphiQL is served: GRAPHIQL, unless TRUSTED_DOCUMENTS is set. GraphiQL sends query text,
 * which that mode refuses, its introspection included, so it would open on "Error fetching schema"
 * and fail every Run; letting free documents through in development instead would make the mode
 * a developer tries differ from the one production enforces.
 */
export function servesGraphiQL({ graphiql, trustedDocuments }: Pick<Settings, 'graphiql' | 'trustedDocuments'>): boolean {
  return graphiql && trustedDocuments === undefined;
}

/** Settings that do not parse, or do not go together: its message has one line for each. */
export class ConfigError extends Error {}

/**
 * Combinations of settings that are refused at start-up, each value being valid on its own.
 * docs/configuration.md lists them from here.
 */
export const SETTING_RULES: ReadonlyArray<{ refused: (settings: Settings) => boolean; message: string }> = [
  {
    refused: (settings) => settings.upstreamUrl === undefined && !settings.sandbox,
    message:
      'UPSTREAM_URL must be set when SANDBOX is false, as it is by default with NODE_ENV=production; SANDBOX=true serves the demo sandbox, which takes any token.',
  },
  {
    refused: ({ production, upstreamUrl, upstreamAllowHttp }) =>
      production && upstreamUrl?.protocol === 'http:' && !isLoopback(upstreamUrl.hostname) && !upstreamAllowHttp,
    message:
      'UPSTREAM_URL must be https:// with NODE_ENV=production unless its host is loopback, or bearer tokens cross the network in clear; UPSTREAM_ALLOW_HTTP=true accepts it where a mesh encrypts the hop.',
  },
  {
    refused: (settings) => settings.corsAllowCredentials && settings.corsOrigins.includes(ANY_ORIGIN),
    message:
      'CORS_ALLOW_CREDENTIALS=true needs CORS_ORIGINS to list origins: with `*` (the default outside production) any site could read answers made with its visitors’ credentials.',
  },
  {
    refused: (settings) => settings.headersTimeoutMs > settings.requestTimeoutMs,
    message: 'HEADERS_TIMEOUT_MS must not be longer than REQUEST_TIMEOUT_MS, which includes it.',
  },
  {
    refused: (settings) => settings.port !== 0 && settings.metricsPort === settings.port,
    message: 'METRICS_PORT must differ from PORT: /metrics is kept off the public port.',
  },
  {
    refused: ({ redisUrl, redisSentinels, redisClusterNodes }) => [redisUrl, redisSentinels, redisClusterNodes].filter(Boolean).length > 1,
    message:
      'Set at most one of REDIS_URL, REDIS_SENTINELS and REDIS_CLUSTER_NODES: each names the whole Redis the replicas share (one server, a primary that Sentinels fail over, a Redis Cluster).',
  },
  {
    refused: ({ redisSentinels, redisSentinelMaster }) => (redisSentinels === undefined) !== (redisSentinelMaster === undefined),
    message: 'REDIS_SENTINELS and REDIS_SENTINEL_MASTER go together: the Sentinels, and the name they monitor the primary under.',
  },
  {
    refused: ({ redisPassword, redisSentinels, redisClusterNodes }) =>
      redisPassword !== undefined && redisSentinels === undefined && redisClusterNodes === undefined,
    message:
      'REDIS_PASSWORD is read with REDIS_SENTINELS or REDIS_CLUSTER_NODES only; REDIS_URL holds its own password (redis://:password@host:6379).',
  },
];

/** Throws a ConfigError with every rule the settings break, one line each. */
function checkSettings(settings: Settings): Settings {
  const broken = SETTING_RULES.filter((rule) => rule.refused(settings)).map((rule) => `Invalid configuration: ${rule.message}`);
  if (broken.length > 0) throw new ConfigError(broken.join('\n'));
  return settings;
}

type Table = typeof SETTINGS;
type ValueOf<S> = S extends Setting<infer T, infer D> ? (undefined extends D ? T | undefined : T) : never;

/** Every setting's value, typed from the table. */
export type Settings = { -readonly [K in keyof Table]: ValueOf<Table[K]> };

/**
 * The settings of one section of the table (or of several), under the table's own names: what a
 * component takes whole, so that a new setting of its section reaches it without a line of wiring.
 */
export type SectionSettings<S extends Section> = { [K in keyof Table as Table[K]['section'] extends S ? K : never]: Settings[K] };

/**
 * Every setting: the given ones, and the defaults for the given `production` (false unless given)
 * for the rest; a setting given as `undefined` takes its default too. Checked against
 * SETTING_RULES, so the environment, a test and a program are held to the same rules.
 */
export function settingsWith(given: Partial<Settings>): Settings {
  const chosen = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined));
  return checkSettings({ ...defaultSettings({ production: given.production ?? false }), ...chosen } as Settings);
}

/** The value of every setting while no variable is set, in the given environment. */
export function defaultSettings(environment: Environment = { production: false }): Settings {
  const entries = Object.entries(SETTINGS).map(([key, spec]) => {
    const fallback = spec.default as unknown;
    return [key, typeof fallback === 'function' ? fallback(environment) : fallback];
  });
  return { ...Object.fromEntries(entries), production: environment.production } as Settings;
}
