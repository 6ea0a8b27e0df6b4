import type { Settings } from '../config/settings.js';
import type { Logger } from '../observability/logger.js';

export interface Announcement {
  settings: Settings;
  port: number;
  /** Where /metrics is served. */
  metricsPort: number;
  /** The embedded sandbox's token, when the gateway forwards to it. */
  sandboxToken: string | undefined;
  workers: number;
}

/**
 * Where to point a browser, and which token the sandbox takes. The token is the sandbox's fixed demo
 * token; it is printed as plain text outside production, never into JSON logs.
 */
export function announce({ settings, port, metricsPort, sandboxToken, workers }: Announcement, logger: Logger): void {
  // Plain lines for a developer, JSON for a log collector.
  const readable = !settings.production;
  const shown = settings.host === '0.0.0.0' || settings.host === '::' ? 'localhost' : settings.host;
  const url = `http://${shown}:${port}/graphql`;
  if (!readable) {
    logger.info(
      { url, port, metricsPort, workers, graphiql: settings.graphiql, sandbox: sandboxToken !== undefined },
      'GraphQL gateway listening',
    );
    if (sandboxToken === undefined) return;
    // In production the sandbox is an explicit SANDBOX=true: still say loudly that any token gets in.
    const line =
      'UPSTREAM_URL is unset: serving the embedded sandbox upstream in-process, with seeded demo data; it accepts any bearer token';
    if (settings.production) logger.warn({ sandbox: true }, line);
    else logger.info(line);
    return;
  }
  console.log(
    `GraphQL gateway listening on ${url}${settings.graphiql ? ' (open it in a browser for GraphiQL)' : ''}${workers > 1 ? ` with ${workers} worker processes` : ''}; metrics on port ${metricsPort}`,
  );
  if (sandboxToken !== undefined) {
    console.log('UPSTREAM_URL is unset: serving the embedded sandbox upstream in-process, with seeded demo data.');
    console.log(`Send this header with every request (GraphiQL opens with it filled in): Authorization: Bearer ${sandboxToken}`);
  } else {
    console.log('Forwarding to the upstream set in UPSTREAM_URL.');
  }
}
