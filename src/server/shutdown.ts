import type { Server, ServerResponse } from 'node:http';
import { type Logger, logsWritten } from '../observability/logger.js';

/**
 * The signals that stop a gateway, each the same way: drain, clean up, exit 0. SIGHUP says the
 * terminal closed; the gateway has nothing to reload (its settings are its environment, read once),
 * so it stops as for SIGTERM instead of dying at once, Node's default.
 */
export const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const satisfies readonly NodeJS.Signals[];

/**
 * Those a terminal sends to every process of its group (Ctrl-C, a hangup). A cluster worker leaves
 * them to the primary, which stops the workers with SIGTERM: a worker that died of one of them
 * would be replaced, or cut its requests short.
 */
export const TERMINAL_SIGNALS = ['SIGINT', 'SIGHUP'] as const satisfies readonly NodeJS.Signals[];

export interface ShutdownOptions {
  server: Server;
  /** How long requests in flight may take to finish before their connections are cut. */
  timeoutMs: number;
  logger: Logger;
  /** Releases what the requests used (upstream pool, sandbox, trace exporter), after the last one. */
  cleanup: () => Promise<unknown>;
  /** @default STOP_SIGNALS */
  signals?: readonly NodeJS.Signals[];
}

/**
 * On one of `signals`: stop accepting connections, let the requests in flight finish within
 * `timeoutMs`, run `cleanup`, exit 0. A second signal cuts the remaining connections at once.
 */
export function shutdownOnSignals({ server, timeoutMs, logger, cleanup, signals = STOP_SIGNALS }: ShutdownOptions): void {
  const inFlight = trackResponses(server);
  let stopping: Promise<void> | undefined;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: closing the remaining connections now');
      server.closeAllConnections();
      return;
    }
    const running = inFlight.size;
    const drained = drain(server, inFlight, timeoutMs);
    logger.info({ signal, inFlight: running, timeoutMs }, 'shutting down: no new connections, finishing requests in flight');
    stopping = drained
      .then((cut) => {
        if (cut > 0) logger.warn({ connections: cut }, 'shutdown timeout: connections with requests still in flight were closed');
        return cleanup();
      })
      .then(
        () => logger.info('stopped'),
        (error: unknown) => logger.error({ err: error }, 'cleanup after shutdown failed'),
      )
      .then(() => logsWritten(logger))
      .finally(() => process.exit(0));
  };
  for (const signal of signals) process.on(signal, stop);
}

/**
 * Closes the server and resolves once every connection has ended, with the number of responses
 * that were cut because `timeoutMs` passed first.
 */
function drain(server: Server, inFlight: ReadonlySet<ServerResponse>, timeoutMs: number): Promise<number> {
  return new Promise((resolve) => {
    // Answers still being prepared tell their keep-alive clients to reconnect elsewhere.
    for (const response of inFlight) if (!response.headersSent) response.setHeader('connection', 'close');
    let cut = 0;
    const timer = setTimeout(() => {
      cut = inFlight.size;
      server.closeAllConnections();
    }, timeoutMs);
    server.close(() => {
      clearTimeout(timer);
      resolve(cut);
    });
    server.closeIdleConnections();
  });
}

/** The responses not yet finished; during a shutdown new ones also close their connection. */
function trackResponses(server: Server): ReadonlySet<ServerResponse> {
  const open = new Set<ServerResponse>();
  server.on('request', (_request, response: ServerResponse) => {
    if (!server.listening && !response.headersSent) response.setHeader('connection', 'close');
    open.add(response);
    response.once('close', () => open.delete(response));
  });
  return open;
}
