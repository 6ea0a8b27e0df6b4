import cluster from 'node:cluster';
import { loadSettings, retiredVariableWarnings } from './config/load.js';
import { ConfigError, type Settings } from './config/settings.js';
import { createLogger, type Logger, routeConsole } from './observability/logger.js';
import { announce } from './server/banner.js';
import { reportListening, runPrimary } from './server/cluster.js';
import { openUpstream, SANDBOX_URL_FROM_PRIMARY } from './server/upstream-source.js';

/**
 * The roles of a process: with WORKERS above 1 the primary only forks and supervises workers
 * (src/server/cluster.ts); every other process serves, through the one start path of
 * src/server/start.ts, and adds what only a process has: the banner, tracing export and signals.
 */
async function main(): Promise<void> {
  const settings = loadSettings();
  const root = createLogger({ level: settings.logLevel, production: settings.production });
  // Said once per gateway: workers read the same environment.
  if (cluster.isPrimary) for (const warning of retiredVariableWarnings()) root.warn(warning);
  if (cluster.isPrimary && settings.workers > 1) return supervise(settings, root);
  return serve(settings, cluster.isWorker ? root.child({ worker: cluster.worker!.id }) : root);
}

async function supervise(settings: Settings, logger: Logger): Promise<void> {
  // One sandbox for all workers, so that what one worker writes the others read.
  const upstream = await openUpstream(settings);
  runPrimary({
    workers: settings.workers,
    logger,
    env: upstream.sandboxToken ? { [SANDBOX_URL_FROM_PRIMARY]: upstream.url.href } : {},
    onListening: (port, metricsPort) =>
      announce({ settings, port, metricsPort, sandboxToken: upstream.sandboxToken, workers: settings.workers }, logger),
    cleanup: () => upstream.close(),
  });
}

async function serve(settings: Settings, logger: Logger): Promise<void> {
  // Loaded only where requests are served: a cluster primary never needs the schema or the tracer.
  const [{ startGateway }, { shutdownOnSignals }] = await Promise.all([import('./server/start.js'), import('./server/shutdown.js')]);
  // The SDK and exporter are loaded only when spans are exported.
  const tracing = settings.otlpEndpoint ? (await import('./observability/tracing-export.js')).startTracing(settings) : undefined;
  const running = await startGateway({ ...settings, logger, tracerProvider: tracing?.provider });
  // From here on whatever a dependency prints is a JSON line too; a failed start still prints its one plain line.
  if (settings.production) routeConsole(logger);
  // Before the gateway says it listens: a signal sent by whoever waited for that line must find the handlers.
  shutdownOnSignals({
    server: running.server,
    timeoutMs: settings.shutdownTimeoutMs,
    logger,
    // A worker's SIGINT comes from a Ctrl-C at the terminal; the primary relays it as SIGTERM.
    signals: cluster.isWorker ? ['SIGTERM'] : ['SIGTERM', 'SIGINT'],
    cleanup: () => Promise.all([running.close(), tracing?.shutdown()]),
  });
  if (cluster.isWorker) process.on('SIGINT', () => {});
  if (cluster.isPrimary)
    announce({ settings, port: running.port, metricsPort: running.metricsPort, sandboxToken: running.sandboxToken, workers: 1 }, logger);
  else reportListening(running.port, running.metricsPort);
}

main().catch((error: unknown) => {
  console.error(
    error instanceof ConfigError ? error.message : `The gateway could not start: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
});
