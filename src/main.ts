import cluster from 'node:cluster';
import { loadSettings, retiredVariableWarnings, shownSettings } from './config/load.js';
import { ConfigError, type Settings } from './config/settings.js';
import { createLogger, type Logger, routeConsole } from './observability/logger.js';
import { announce } from './server/banner.js';
import { VERSION } from './server/build-info.js';
import { reportListening, runPrimary } from './server/cluster.js';
import { openUpstream, SANDBOX_URL_FROM_PRIMARY } from './server/upstream-source.js';

/**
 * The roles of a process: with WORKERS above 1 the primary only forks and supervises workers
 * (src/server/cluster.ts); every other process serves, through the one start path of
 * src/server/start.ts, and adds what only a process has: the banner, tracing export and signals.
 * The command line only asks for something else: the version, the help, or a check of the
 * configuration that runs what a start runs up to listening (`checkStart`).
 */
async function main(command: Command): Promise<void> {
  if (command === 'version') return console.log(VERSION);
  if (command === 'help') return console.log(HELP);
  if (command === 'check-config') return checkConfig();
  const settings = loadSettings();
  const root = createLogger({ level: settings.logLevel, production: settings.production });
  // Said once per gateway (workers read the same environment), as the banner says what it says: a
  // JSON line in production, plain text otherwise.
  if (cluster.isPrimary) {
    for (const warning of retiredVariableWarnings()) {
      if (settings.production) root.warn(warning);
      else console.log(warning);
    }
  }
  if (cluster.isPrimary && settings.workers > 1) return supervise(settings, root);
  return serve(settings, cluster.isWorker ? root.child({ worker: cluster.worker!.id }) : root);
}

/**
 * `--check-config`, in plain text whatever NODE_ENV says, for a person or a pipeline to read: the
 * retired variables still set, then every bad setting (the ConfigError's lines, printed on the way
 * out), or the verdict and the settings the gateway would run with, secrets hidden.
 */
async function checkConfig(): Promise<void> {
  for (const warning of retiredVariableWarnings()) console.log(warning);
  const settings = loadSettings();
  const { checkStart } = await import('./server/start.js');
  await checkStart(settings);
  console.log([CONFIGURATION_VALID, ...shownSettings(settings).map((line) => `  ${line}`)].join('\n'));
  process.exit(0);
}

/** What the command line asks for: no argument serves. */
type Command = 'serve' | 'version' | 'help' | 'check-config';

const COMMANDS: Readonly<Record<string, Command>> = { '--version': 'version', '--help': 'help', '--check-config': 'check-config' };

/** What `--check-config` prints when a start would go ahead. */
const CONFIGURATION_VALID = 'The configuration is valid: the gateway would start with it.';

const HELP = `vms-graphql-gateway ${VERSION}: a GraphQL gateway in front of the Video Management Service REST API v2.

Usage: node dist/main.js [--check-config | --version | --help]

  (no option)       Start the gateway, configured by environment variables.
  --check-config    Check the environment as a start would, without listening or calling anything:
                    exit 0 with the settings it would run with (secrets hidden), or 1 with a line
                    for each bad setting.
  --version         Print the version.
  --help            Print this text.

Every setting is an environment variable: each, with its default and accepted values, is in
docs/configuration.md of the repository; metrics, alerts, probes and shutdown in docs/operations.md.`;

function commandOf(args: readonly string[]): Command {
  if (args.length === 0) return 'serve';
  const command = args.length === 1 ? COMMANDS[args[0]!] : undefined;
  if (!command) throw new UsageError(`Unknown arguments: ${args.join(' ')}. Try --help.`);
  return command;
}

/** Arguments the gateway does not take: refused, as a bad setting is, rather than ignored. */
class UsageError extends Error {}

async function supervise(settings: Settings, logger: Logger): Promise<void> {
  // One sandbox for all workers, so that what one worker writes the others read.
  const upstream = await openUpstream(settings);
  runPrimary({
    workers: settings.workers,
    logger,
    env: upstream.sandboxToken ? { [SANDBOX_URL_FROM_PRIMARY]: upstream.url.href } : {},
    onListening: (port, metricsPort) => announce({ settings, port, metricsPort, upstream, workers: settings.workers }, logger),
    cleanup: () => upstream.close(),
  });
}

async function serve(settings: Settings, logger: Logger): Promise<void> {
  // Loaded only where requests are served: a cluster primary never needs the schema or the tracer.
  const [{ startGateway }, { shutdownOnSignals, STOP_SIGNALS, TERMINAL_SIGNALS }] = await Promise.all([
    import('./server/start.js'),
    import('./server/shutdown.js'),
  ]);
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
    // A worker's SIGINT or SIGHUP comes from the terminal, to the primary too, which relays it as SIGTERM.
    signals: cluster.isWorker ? ['SIGTERM'] : STOP_SIGNALS,
    cleanup: () => Promise.all([running.close(), tracing?.shutdown()]),
  });
  if (cluster.isWorker) for (const signal of TERMINAL_SIGNALS) process.on(signal, () => {});
  if (cluster.isPrimary)
    announce(
      {
        settings,
        port: running.port,
        metricsPort: running.metricsPort,
        upstream: { url: running.upstreamUrl, sandboxToken: running.sandboxToken },
        workers: 1,
      },
      logger,
    );
  else reportListening(running.port, running.metricsPort);
}

Promise.resolve()
  .then(() => main(commandOf(process.argv.slice(2))))
  .catch((error: unknown) => {
    console.error(
      error instanceof ConfigError || error instanceof UsageError
        ? error.message
        : `The gateway could not start: ${error instanceof Error ? error.message : String(error)}`,
    );
    process.exit(1);
  });
