import { createServer } from 'node:http';
import { ConfigError, loadConfig } from './config.js';
import { createGateway } from './gateway.js';
import { startSandbox } from './sandbox/server.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const sandbox = config.upstreamUrl ? undefined : await startSandbox();
  const upstreamUrl = config.upstreamUrl ?? new URL(sandbox!.url);
  const gateway = createGateway({
    upstreamUrl,
    upstreamTimeoutMs: config.upstreamTimeoutMs,
    graphiql: config.graphiql,
    graphiqlHeaders: sandbox ? { Authorization: `Bearer ${sandbox.token}` } : undefined,
  });
  const server = createServer(gateway.yoga);
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const shown = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  console.log(`GraphQL gateway listening on http://${shown}:${port}/graphql${config.graphiql ? ' (open it in a browser for GraphiQL)' : ''}`);
  if (sandbox) {
    console.log('UPSTREAM_URL is unset: serving the embedded sandbox upstream in-process, with seeded demo data.');
    console.log(`Paste this header into GraphiQL's Headers tab: {"Authorization": "Bearer ${sandbox.token}"}`);
  } else {
    console.log('Forwarding to the upstream set in UPSTREAM_URL.');
  }

  const stop = () => {
    server.close();
    server.closeIdleConnections();
    void Promise.all([gateway.close(), sandbox?.close()]).then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : `The gateway could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
