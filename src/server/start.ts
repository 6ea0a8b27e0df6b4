import type { Server } from 'node:http';
import { setTimeout } from 'node:timers/promises';
import { type Settings, settingsWith } from '../config/settings.js';
import { createGateway, type Gateway, type ProgramOptions } from '../gateway.js';
import { exportBuildInfo } from '../observability/metrics.js';
import { buildInfo, USER_AGENT } from './build-info.js';
import { createHttpServer } from './http-server.js';
import { closed, listen } from './listen.js';
import { createMetricsServer } from './metrics-server.js';
import { openUpstream } from './upstream-source.js';

/** How long a start waits for Redis before it serves without it. */
const REDIS_CONNECT_WAIT_MS = 2_000;

/** Any setting (unset ones take their default), and what only a program can give. */
export type StartOptions = Partial<Settings> & Pick<ProgramOptions, 'logger' | 'tracerProvider'>;

export interface RunningGateway {
  gateway: Gateway;
  /** The GraphQL server: `/graphql`, `/health`, `/ready`. */
  server: Server;
  /** The port it listens on (PORT, or the one picked for 0). */
  port: number;
  /** The port of `/metrics` (METRICS_PORT, or the one picked for 0). */
  metricsPort: number;
  /** Where it sends its calls: UPSTREAM_URL, or the embedded sandbox's address. */
  upstreamUrl: URL;
  /** The sandbox's token when the upstream is the embedded sandbox. */
  sandboxToken: string | undefined;
  /** Closes both servers and every connection they hold, then the upstream client and the sandbox. */
  close(): Promise<void>;
}

/**
 * Starts one gateway as every process, test and benchmark runs it: the settings checked, the
 * upstream chosen (`openUpstream`), the gateway behind the HTTP front on PORT and `/metrics` on
 * METRICS_PORT, both on HOST. What is left to src/main.ts are the roles of a process: workers,
 * the banner, tracing export and signals.
 */
export async function startGateway({ logger, tracerProvider, ...given }: StartOptions): Promise<RunningGateway> {
  const settings = settingsWith({ ...given, upstreamUserAgent: given.upstreamUserAgent ?? USER_AGENT });
  const upstream = await openUpstream(settings);
  const graphiqlSandbox = upstream.sandboxToken === undefined ? undefined : { url: upstream.url, token: upstream.sandboxToken };
  let gateway: Gateway;
  try {
    gateway = await createGateway({ ...settings, upstreamUrl: upstream.url, logger, tracerProvider, graphiqlSandbox });
  } catch (error) {
    await upstream.close();
    throw error;
  }
  exportBuildInfo(gateway.metrics, buildInfo(settings.revision));
  // A Redis that answers within a moment is connected before the first request, which then finds
  // the shared state; one that does not is not waited for: the stores answer without it until it does.
  await Promise.race([gateway.stateConnected(), setTimeout(REDIS_CONNECT_WAIT_MS, undefined, { ref: false })]);
  const server = createHttpServer(gateway, settings);
  const metricsServer = createMetricsServer(gateway.metrics, settings);
  const close = async () => {
    await Promise.all([closed(server), closed(metricsServer)]);
    await gateway.close();
    await upstream.close();
  };
  try {
    const [port, metricsPort] = await Promise.all([listen(server, 'port', settings), listen(metricsServer, 'metricsPort', settings)]);
    return { gateway, server, port, metricsPort, upstreamUrl: upstream.url, sandboxToken: upstream.sandboxToken, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Where a checked configuration's gateway would send its calls when the sandbox would serve them: it is never called. */
const NO_UPSTREAM = new URL('http://127.0.0.1:9/v2');

/**
 * What `--check-config` runs: every check a start makes before it listens, and nothing else. The
 * settings against SETTING_RULES, then the gateway built as `startGateway` builds it (the manifests
 * of TRUSTED_DOCUMENTS read, the schema and plugins made), and closed: no port is listened on, no
 * sandbox started, no upstream called, no Redis connected to (REDIS_URL was parsed with the settings;
 * whether Redis answers cannot stop a start, which serves without it). A start's failures throw
 * here, with the same errors.
 */
export async function checkStart(given: Omit<StartOptions, 'logger' | 'tracerProvider'>): Promise<void> {
  const settings = settingsWith(given);
  const gateway = await createGateway({ ...settings, upstreamUrl: settings.upstreamUrl ?? NO_UPSTREAM, redisUrl: undefined });
  await gateway.close();
}
