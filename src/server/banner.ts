import { type Settings, servesGraphiQL } from '../config/settings.js';
import type { Logger } from '../observability/logger.js';
import { buildInfo } from './build-info.js';
import { hostInAddress } from './listen.js';

export interface Announcement {
  settings: Settings;
  port: number;
  /** Where /metrics is served. */
  metricsPort: number;
  /** The embedded sandbox's token, when the gateway forwards to it. */
  sandboxToken: string | undefined;
  workers: number;
}

/** Why GRAPHIQL=true (the default outside production) serves no GraphiQL: `servesGraphiQL`. */
const GRAPHIQL_WITHHELD =
  'GraphiQL is not served: TRUSTED_DOCUMENTS is set, so only the manifests’ documents run, sent by documentId, and GraphiQL sends query text';

/**
 * Where to point a browser, and which token the sandbox takes. The token is the sandbox's fixed demo
 * token; it is printed as plain text outside production, never into JSON logs.
 */
export function announce({ settings, port, metricsPort, sandboxToken, workers }: Announcement, logger: Logger): void {
  const everyInterface = settings.host === '0.0.0.0' || settings.host === '::';
  const shown = everyInterface ? 'localhost' : hostInAddress(settings.host);
  const url = `http://${shown}:${port}/graphql`;
  const graphiql = servesGraphiQL(settings);
  const graphiqlWithheld = settings.graphiql && !graphiql;
  const sandboxLine =
    'UPSTREAM_URL is unset: serving the embedded sandbox upstream in-process, with seeded demo data; it accepts any bearer token';
  // JSON for a log collector in production; there the sandbox is an explicit SANDBOX=true, so say loudly that any token gets in.
  const { version, revision } = buildInfo(settings.revision);
  if (settings.production) {
    logger.info(
      { url, port, metricsPort, workers, graphiql, sandbox: sandboxToken !== undefined, version, revision },
      'GraphQL gateway listening',
    );
    if (graphiqlWithheld) logger.info({ graphiql: false }, GRAPHIQL_WITHHELD);
    if (sandboxToken !== undefined) logger.warn({ sandbox: true }, sandboxLine);
    return;
  }
  const reach = everyInterface
    ? `every interface (HOST=${settings.host}): other machines on the network can reach it`
    : `HOST=${settings.host} only; set HOST=0.0.0.0 to listen on every interface`;
  console.log(
    `GraphQL gateway ${version} (revision ${revision}) listening on ${url}${graphiql ? ' (open it in a browser for GraphiQL)' : ''}${workers > 1 ? ` with ${workers} worker processes` : ''}; metrics on port ${metricsPort}; ${reach}.`,
  );
  if (graphiqlWithheld) console.log(`${GRAPHIQL_WITHHELD}.`);
  if (sandboxToken !== undefined) {
    console.log(`${sandboxLine}.`);
    console.log(`Send this header with every request (GraphiQL opens with it filled in): Authorization: Bearer ${sandboxToken}`);
  } else {
    console.log('Forwarding to the upstream set in UPSTREAM_URL.');
  }
}
