import type { Settings } from '../config/settings.js';
import type { Logger } from '../observability/logger.js';

export interface Announcement {
  settings: Settings;
  port: number;
  /** The embedded sandbox's token, when the gateway forwards to it. */
  sandboxToken: string | undefined;
  /** Plain lines for a developer rather than JSON for a log collector: outside production. */
  readable: boolean;
  workers: number;
}

/**
 * Where to point a browser, and which token the sandbox takes. The token is the sandbox's fixed demo
 * token; it is printed as plain text outside production, never into JSON logs.
 */
export function announce({ settings, port, sandboxToken, readable, workers }: Announcement, logger: Logger): void {
  const shown = settings.host === '0.0.0.0' || settings.host === '::' ? 'localhost' : settings.host;
  const url = `http://${shown}:${port}/graphql`;
  if (!readable) {
    logger.info({ url, port, workers, graphiql: settings.graphiql, sandbox: sandboxToken !== undefined }, 'GraphQL gateway listening');
    if (sandboxToken !== undefined)
      logger.info('UPSTREAM_URL is unset: serving the embedded sandbox upstream in-process, with seeded demo data');
    return;
  }
  console.log(
    `GraphQL gateway listening on ${url}${settings.graphiql ? ' (open it in a browser for GraphiQL)' : ''}${workers > 1 ? ` with ${workers} worker processes` : ''}`,
  );
  if (sandboxToken !== undefined) {
    console.log('UPSTREAM_URL is unset: serving the embedded sandbox upstream in-process, with seeded demo data.');
    console.log(`Send this header with every request (GraphiQL opens with it filled in): Authorization: Bearer ${sandboxToken}`);
  } else {
    console.log('Forwarding to the upstream set in UPSTREAM_URL.');
  }
}
