import type { Server } from 'node:http';
import type { Gateway } from '../../src/gateway.js';
import { type StartOptions, startGateway as startGatewayProcess } from '../../src/server/start.js';

export interface TestGateway {
  /** http://127.0.0.1:PORT/graphql */
  url: string;
  /** http://127.0.0.1:METRICS_PORT/metrics */
  metricsUrl: string;
  server: Server;
  /** The gateway behind the server, for what only a program can see (which path answered). */
  gateway: Gateway;
  /** The embedded sandbox the gateway started, when no `upstreamUrl` was given. */
  sandbox: { url: string; token: string } | undefined;
  /** POSTs one GraphQL request and returns the status, headers and parsed body. */
  graphql(
    query: string,
    options?: { variables?: Record<string, unknown>; operationName?: string; headers?: Record<string, string> },
  ): Promise<GraphQLAnswer>;
  close(): Promise<void>;
}

export interface GraphQLAnswer {
  status: number;
  headers: Headers;
  body: { data?: Record<string, unknown> | null; errors?: Array<Record<string, unknown>>; extensions?: Record<string, any> };
}

/**
 * The real gateway, started by the same function as `npm start` (src/server/start.ts), on
 * ephemeral loopback ports; without `upstreamUrl` it starts the embedded sandbox, as `npm start` does. Settings not given take their defaults, except CORS: no allow-list
 * unless the test gives one, since the development default (any origin) would hide what the CORS
 * tests look for; the rate limit, off unless the test sets it, since soak and property tests
 * send thousands of operations from one caller; and the cost of each answer (COST_SHOWN), shown
 * only when asked for, as in production, since the tests of everything else compare whole answers.
 */
export async function startTestGateway(options: StartOptions): Promise<TestGateway> {
  const running = await startGatewayProcess({
    host: '127.0.0.1',
    port: 0,
    metricsPort: 0,
    corsOrigins: [],
    rateLimit: 0,
    costShown: 'asked',
    ...options,
  });
  const url = `http://127.0.0.1:${running.port}/graphql`;
  return {
    url,
    metricsUrl: `http://127.0.0.1:${running.metricsPort}/metrics`,
    server: running.server,
    gateway: running.gateway,
    sandbox: running.sandboxToken === undefined ? undefined : { url: running.upstreamUrl.href, token: running.sandboxToken },
    async graphql(query, { variables, operationName, headers } = {}) {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
        body: JSON.stringify({ query, variables, operationName }),
      });
      return { status: response.status, headers: response.headers, body: (await response.json()) as GraphQLAnswer['body'] };
    },
    close: () => running.close(),
  };
}

/** The lines of the gateway's /metrics that start with `prefix`, in the order it wrote them. */
export async function metricLines(gateway: Pick<TestGateway, 'metricsUrl'>, prefix: string): Promise<string[]> {
  const text = await (await fetch(gateway.metricsUrl)).text();
  return text.split('\n').filter((line) => line.startsWith(prefix));
}
