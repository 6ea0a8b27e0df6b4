import { type Settings, servesGraphiQL } from '../config/settings.js';
import type { Logger } from '../observability/logger.js';
import { buildInfo } from './build-info.js';
import { hostInAddress } from './listen.js';
import type { UpstreamSource } from './upstream-source.js';

export interface Announcement {
  settings: Settings;
  port: number;
  /** Where /metrics is served. */
  metricsPort: number;
  /** Where the calls go: its address is printed only when it is the embedded sandbox (with its token). */
  upstream: Pick<UpstreamSource, 'url' | 'sandboxToken'>;
  workers: number;
}

/** Why GRAPHIQL=true (the default outside production) serves no GraphiQL: `servesGraphiQL`. */
const GRAPHIQL_WITHHELD =
  'GraphiQL is not served: TRUSTED_DOCUMENTS is set, so only the manifests’ documents run, sent by documentId, and GraphiQL sends query text';

/**
 * Where to point a browser, and which token the sandbox takes. The token is the sandbox's fixed demo
 * token, and the sandbox's address one on this machine's loopback; both are printed as plain text
 * outside production, never into JSON logs. UPSTREAM_URL's address is never printed.
 */
export function announce({ settings, port, metricsPort, upstream, workers }: Announcement, logger: Logger): void {
  const { sandboxToken } = upstream;
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
    console.log(
      `The sandbox upstream is at ${upstream.url.href}, on this machine only: the curl commands GraphiQL's Upstream tab copies call it.`,
    );
  } else {
    console.log('Forwarding to the upstream set in UPSTREAM_URL.');
  }
}
