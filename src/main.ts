import cluster from 'node:cluster';
import { loadSettings } from './config/load.js';
import { ConfigError } from './config/settings.js';
import { createLogger } from './observability/logger.js';
import { SANDBOX_TOKEN, startSandbox } from './sandbox/server.js';
import { announce } from './server/banner.js';
import { reportListening, runPrimary, SANDBOX_URL_FROM_PRIMARY } from './server/cluster.js';
import { shutdownOnSignals } from './server/shutdown.js';

async function main(): Promise<void> {
  const settings = loadSettings();
  const readable = !settings.production;
  const root = createLogger({ level: settings.logLevel, production: settings.production });
  const logger = cluster.isWorker ? root.child({ worker: cluster.worker!.id }) : root;
  if (settings.workers > 1 && cluster.isPrimary) {
    // One sandbox for all workers, so that what one worker writes the others read.
    const sandbox = settings.upstreamUrl ? undefined : await startSandbox();
    return runPrimary({
      workers: settings.workers,
      logger,
      env: sandbox ? { [SANDBOX_URL_FROM_PRIMARY]: sandbox.url } : {},
      onListening: (port, metricsPort) =>
        announce({ settings, port, metricsPort, sandboxToken: sandbox?.token, readable, workers: settings.workers }, logger),
      cleanup: async () => sandbox?.close(),
    });
  }
  // Loaded only where requests are served: a cluster primary never needs the schema or the tracer.
  const [{ createGateway }, { createHttpServer }, { createMetricsServer }, { listen, closed }] = await Promise.all([
    import('./gateway.js'),
    import('./server/http-server.js'),
    import('./server/metrics-server.js'),
    import('./server/listen.js'),
  ]);
  // The SDK and exporter are loaded only when spans are exported.
  const tracing = settings.otlpEndpoint ? (await import('./observability/tracing-export.js')).startTracing(settings) : undefined;
  const primarySandbox = cluster.isWorker ? process.env[SANDBOX_URL_FROM_PRIMARY] : undefined;
  const sandbox = settings.upstreamUrl || primarySandbox ? undefined : await startSandbox();
  const sandboxToken = sandbox?.token ?? (primarySandbox ? SANDBOX_TOKEN : undefined);
  const upstreamUrl = settings.upstreamUrl ?? new URL(primarySandbox ?? sandbox!.url);
  const gateway = createGateway({
    ...settings,
    upstreamUrl,
    graphiqlHeaders: sandboxToken ? { Authorization: `Bearer ${sandboxToken}` } : undefined,
    logger,
    tracerProvider: tracing?.provider,
  });
  const server = createHttpServer(gateway, settings);
  const metricsServer = createMetricsServer(gateway.metrics);
  const [port, metricsPort] = await Promise.all([
    listen(server, settings.port, settings.host),
    listen(metricsServer, settings.metricsPort, settings.host),
  ]);
  if (cluster.isPrimary) announce({ settings, port, metricsPort, sandboxToken, readable, workers: 1 }, logger);
  else reportListening(port, metricsPort);
  shutdownOnSignals({
    server,
    timeoutMs: settings.shutdownTimeoutMs,
    logger,
    // A worker's SIGINT comes from a Ctrl-C at the terminal; the primary relays it as SIGTERM.
    signals: cluster.isWorker ? ['SIGTERM'] : ['SIGTERM', 'SIGINT'],
    cleanup: () => Promise.all([gateway.close(), sandbox?.close(), tracing?.shutdown(), closed(metricsServer)]),
  });
  if (cluster.isWorker) process.on('SIGINT', () => {});
}

main().catch((error: unknown) => {
  console.error(
    error instanceof ConfigError ? error.message : `The gateway could not start: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
});
