import cluster from 'node:cluster';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { ErrorCode } from '../errors.js';
import { FIELD_USAGE_METRIC } from '../field-usage.js';
import { acceptedByUpstream, type IdempotencyOutcome } from '../operation-record.js';
import type { BreakerState } from '../upstream/breaker.js';
import type { UpstreamCall } from '../upstream/client.js';
import { reportToPrimary } from './cluster-metrics.js';
import type { RequestSummary } from './request-summary.js';

/** Operation names are chosen by callers: past this many distinct ones, further names count as `other`. */
export const MAX_OPERATION_NAMES = 100;

/** Client names and versions (client awareness): past this many distinct ones, further ones count as `other`. */
export const MAX_CLIENT_LABELS = 20;

export interface MetricsOptions {
  /** Operation names come from the trusted documents, so any that ran may be a label. @default false */
  namesAreTrusted?: boolean;
  /** The client names that get a label of their own; others are `other` (METRICS_CLIENT_NAMES; production lists none by default). @default the first MAX_CLIENT_LABELS seen */
  clientNames?: readonly string[] | undefined;
}

/** Why a server of the gateway closed a client's connection over its answers (src/server/bounded-server.ts). */
export const CONNECTION_CLOSE_REASONS = ['send_timeout', 'unread_bytes'] as const;
export type ConnectionCloseReason = (typeof CONNECTION_CLOSE_REASONS)[number];

export interface Metrics {
  registry: Registry;
  observeRequest(summary: RequestSummary): void;
  /** For the UpstreamClient's `onCall`. */
  observeUpstreamCall(call: UpstreamCall): void;
  /** For the servers' `boundedServer`. */
  observeConnectionClosed(reason: ConnectionCloseReason): void;
}

/** What the metrics read of the upstream client at scrape time. */
export interface UpstreamGaugeSources {
  /** Socket counts of the keep-alive pool. */
  readonly stats: { connected: number; pending: number };
  readonly breakerState: BreakerState;
}

/** The codes that get a label of their own: the gateway's (src/errors.ts); any other, which should not occur, is `other`. */
const KNOWN_CODES: ReadonlySet<string> = new Set(Object.values(ErrorCode));

const CIRCUIT_STATES: Record<BreakerState, number> = { closed: 0, halfOpen: 1, open: 2 };

/** One registry per gateway, so several gateways in one process (tests) never mix their counts. */
export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  // The lag figures come from a timer of this period, and each counts the period itself (perf_hooks'
  // monitorEventLoopDelay): at 10 ms an idle gateway reads 0.010; at 100 ms it would read 0.100 and
  // hide any lag below that. Waking a hundred times a second costs about 4 ms of CPU a second
  // (docs/operations.md, Metrics).
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 10 });
  if (cluster.isWorker) reportToPrimary(registry);
  return {
    registry,
    observeRequest: requestMetrics(registry, options),
    observeUpstreamCall: upstreamCallMetrics(registry),
    observeConnectionClosed: connectionMetrics(registry),
  };
}

const counter = <L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[]) =>
  new Counter({ name, help, labelNames, registers: [registry] });

const histogram = <L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[]) =>
  new Histogram({ name, help, labelNames, registers: [registry] });

/**
 * The metrics of each operation. Each takes few of the labels callers choose, so that the series
 * stay bounded in combination, not only per label (docs/operations.md, section Metrics, gives the
 * worst case): every operation name × client × version × outcome as series once made 8 MB of /metrics.
 */
function requestMetrics(registry: Registry, options: MetricsOptions): Metrics['observeRequest'] {
  const requests = counter(
    registry,
    'gateway_graphql_requests_total',
    'GraphQL operations answered, refusals included, by operation and outcome.',
    ['operation_name', 'operation_type', 'outcome'],
  );
  const requestSeconds = histogram(
    registry,
    'gateway_graphql_request_duration_seconds',
    'Time from reading a GraphQL request to its response, by operation.',
    ['operation_name'],
  );
  const clientRequests = counter(
    registry,
    'gateway_graphql_client_requests_total',
    'GraphQL operations answered, by calling app, its version and the outcome.',
    ['client_name', 'client_version', 'outcome'],
  );
  const errorCodes = counter(
    registry,
    'gateway_graphql_errors_total',
    'GraphQL operations answered with each error code (an operation counts once per code it got).',
    ['code'],
  );
  const clientClosed = counter(
    registry,
    'gateway_graphql_client_closed_total',
    'GraphQL operations whose client went away before their answer was out; their errors (aborted upstream calls) are not counted.',
    [],
  );
  const cacheLookups = counter(
    registry,
    'gateway_response_cache_total',
    'Operations the read cache looked up, by outcome: hit, miss, bypass (Cache-Control: no-cache).',
    ['outcome'],
  );
  const droppedHeaders = counter(
    registry,
    'gateway_forwarded_headers_dropped_total',
    'Client headers of FORWARD_HEADERS not sent upstream, their value unsendable (a control character, over 1 KiB), by header.',
    ['header'],
  );
  const { operationName, clientLabels } = boundedRequestLabels(options);
  const observeUsage = usageMetrics(registry);
  const observeKey = idempotencyMetrics(registry);
  return (summary) => {
    const operation_name = operationName(summary);
    requests.inc({ operation_name, operation_type: summary.operationType ?? 'unknown', outcome: summary.outcome });
    requestSeconds.observe({ operation_name }, summary.durationMs / 1000);
    clientRequests.inc({ ...clientLabels(summary), outcome: summary.outcome });
    // A client that left made its own calls fail: counted apart, or junk requests dropped at will would page on-call.
    if (summary.outcome === 'client_closed') clientClosed.inc();
    else for (const code of summary.errorCodes) errorCodes.inc({ code: KNOWN_CODES.has(code) ? code : 'other' });
    if (summary.cache) cacheLookups.inc({ outcome: summary.cache });
    if (summary.idempotency) observeKey(summary.idempotency);
    // The names are FORWARD_HEADERS' own: bounded by the setting.
    for (const header of summary.droppedHeaders ?? []) droppedHeaders.inc({ header });
    // Only what ran for a token the REST API accepted: calls without one, or with a forged one, cannot make a field look used.
    if (summary.coordinates && acceptedByUpstream(summary.upstreamStatuses)) observeUsage(summary, clientLabels(summary).client_name);
  };
}

/** What became of each mutation's Idempotency-Key (src/plugins/use-idempotency.ts): a label per outcome, a handful at most. */
function idempotencyMetrics(registry: Registry): (outcome: IdempotencyOutcome) => void {
  const keys = counter(
    registry,
    'gateway_idempotency_keys_total',
    'Mutations sent with an Idempotency-Key, by what became of it: stored, replayed, released (nothing reached the upstream), unknown, conflict (its first request still running), reused (another request’s key), unavailable (the store failing).',
    ['outcome'],
  );
  return (outcome) => keys.inc({ outcome });
}

/** What an operation that ran used of the schema, by its client's label: its coordinates and the deprecated ones among them. */
function usageMetrics(registry: Registry): (summary: RequestSummary, client: string) => void {
  // Bounded by the schema's coordinates and the client-name rule: every coordinate × 20 named clients, `other` and `none` at most.
  const fieldUsage = counter(registry, FIELD_USAGE_METRIC.name, FIELD_USAGE_METRIC.help, FIELD_USAGE_METRIC.labelNames);
  const deprecatedUsage = counter(
    registry,
    'gateway_graphql_deprecated_requests_total',
    'GraphQL operations that used each deprecated schema coordinate, by client: who still uses what will go.',
    ['coordinate', 'client'],
  );
  return (summary, client) => {
    for (const coordinate of summary.coordinates ?? []) fieldUsage.inc({ coordinate, client });
    for (const coordinate of summary.deprecated ?? []) deprecatedUsage.inc({ coordinate, client });
  };
}

/**
 * The metrics of each upstream call sent. A call counts once, whatever its attempts; the attempts
 * past its first count apart, by the call's method and route alone, so that retries add no series
 * per status: at most one per route the gateway reads.
 */
function upstreamCallMetrics(registry: Registry): Metrics['observeUpstreamCall'] {
  const labels = ['method', 'route', 'status_class'] as const;
  const calls = counter(registry, 'gateway_upstream_requests_total', 'Requests sent to the upstream REST API.', labels);
  const callSeconds = histogram(
    registry,
    'gateway_upstream_request_duration_seconds',
    'Time from sending an upstream request to its last body byte.',
    labels,
  );
  const retries = counter(
    registry,
    'gateway_upstream_retries_total',
    'Upstream requests sent again after a failed attempt (502, 503, 504 or a connection error of a GET), by method and route.',
    ['method', 'route'],
  );
  return (call) => {
    const values = {
      method: call.method,
      route: call.route,
      status_class: call.status === undefined ? 'none' : `${Math.floor(call.status / 100)}xx`,
    };
    calls.inc(values);
    callSeconds.observe(values, call.durationMs / 1000);
    if (call.retries.length > 0) retries.inc({ method: call.method, route: call.route }, call.retries.length);
  };
}

/** Connections closed because their client did not take its answer, each reason shown from the start (0), so that a rate of it exists. */
function connectionMetrics(registry: Registry): Metrics['observeConnectionClosed'] {
  const closed = counter(
    registry,
    'gateway_http_connections_closed_total',
    'Client connections closed because the client did not take its answer: send_timeout (SEND_TIMEOUT_MS), unread_bytes (MAX_UNREAD_BYTES).',
    ['reason'],
  );
  for (const reason of CONNECTION_CLOSE_REASONS) closed.inc({ reason }, 0);
  return (reason) => closed.inc({ reason });
}

/**
 * The labels callers choose, bounded: an operation's name and the calling app's name and version.
 * Only a name vouched for takes one of the label slots: an operation that ran for a token the
 * upstream accepted in that very operation (`acceptedByUpstream`), or a trusted document. Junk names
 * sent without a token, or with one nobody checked, and answers from the read cache count as `other`.
 */
function boundedRequestLabels({ namesAreTrusted = false, clientNames }: MetricsOptions) {
  const vouched = ({ executed, upstreamStatuses }: RequestSummary) => executed && (namesAreTrusted || acceptedByUpstream(upstreamStatuses));
  const operationNames = boundedLabels(MAX_OPERATION_NAMES);
  const operationName = (summary: RequestSummary): string => {
    const name = summary.operationName;
    if (name === undefined) return 'anonymous';
    // The summary already bounds the name (recordedOperationName); only a vouched one takes a slot.
    if (!vouched(summary)) return 'other';
    return operationNames(name);
  };
  const listedClients = clientNames ? new Set(clientNames) : undefined;
  const seenClients = boundedLabels(MAX_CLIENT_LABELS);
  const clientVersions = boundedLabels(MAX_CLIENT_LABELS);
  const clientLabels = (summary: RequestSummary) => {
    const { name, version } = summary.client;
    if (name === undefined) return { client_name: 'none', client_version: 'none' };
    const known = name !== 'other' && vouched(summary) && (listedClients ? listedClients.has(name) : seenClients(name) === name);
    if (!known) return { client_name: 'other', client_version: 'other' };
    return {
      client_name: name,
      client_version: version === undefined ? 'none' : clientVersions(`${name}@${version}`) === 'other' ? 'other' : version,
    };
  };
  return { operationName, clientLabels };
}

/** A label value as given while fewer than `max` distinct ones were taken; `other` after that. */
function boundedLabels(max: number): (value: string) => string {
  const taken = new Set<string>();
  return (value) => {
    if (taken.has(value)) return value;
    if (taken.size >= max) return 'other';
    taken.add(value);
    return value;
  };
}

/** Gauges of the upstream client's pool and circuit breaker, read at scrape time. */
export function watchUpstream({ registry }: Metrics, upstream: UpstreamGaugeSources): void {
  new Gauge({
    name: 'gateway_upstream_open_connections',
    help: 'Sockets open to the upstream origin.',
    registers: [registry],
    collect() {
      this.set(upstream.stats.connected);
    },
  });
  new Gauge({
    name: 'gateway_upstream_pending_requests',
    help: 'Upstream requests waiting for a free socket.',
    registers: [registry],
    collect() {
      this.set(upstream.stats.pending);
    },
  });
  new Gauge({
    name: 'gateway_upstream_circuit_state',
    help: 'Upstream circuit breaker: 0 closed, 1 half-open, 2 open.',
    registers: [registry],
    // Across workers the worst state is the one to see.
    aggregator: 'max',
    collect() {
      this.set(CIRCUIT_STATES[upstream.breakerState]);
    },
  });
}

/**
 * `gateway_build_info{version, revision, node} 1`: which build runs where, to join on or to count
 * the versions of a rollout by.
 */
export function exportBuildInfo({ registry }: Metrics, build: { version: string; revision: string; node: string }): void {
  new Gauge({
    name: 'gateway_build_info',
    help: 'The build that runs: its version (package.json), source revision (GATEWAY_REVISION) and Node.js version; always 1.',
    labelNames: ['version', 'revision', 'node'],
    registers: [registry],
    // Every worker runs the same build: summed, it would read as the number of workers.
    aggregator: 'first',
  }).set(build, 1);
}
