import type { Server } from 'node:http';
import { settingsWith } from '../../src/config/settings.js';
import { createGateway, type GatewayOptions } from '../../src/gateway.js';
import { createHttpServer } from '../../src/server/http-server.js';
import { closed, listen } from '../../src/server/listen.js';
import { createMetricsServer } from '../../src/server/metrics-server.js';

export interface RunningGateway {
  /** http://127.0.0.1:PORT/graphql */
  url: string;
  /** http://127.0.0.1:METRICS_PORT/metrics */
  metricsUrl: string;
  server: Server;
  /** POSTs one GraphQL request and returns the status, headers and parsed body. */
  graphql(query: string, options?: { variables?: Record<string, unknown>; headers?: Record<string, string> }): Promise<GraphQLAnswer>;
  close(): Promise<void>;
}

export interface GraphQLAnswer {
  status: number;
  headers: Headers;
  body: { data?: Record<string, unknown> | null; errors?: Array<Record<string, unknown>> };
}

/**
 * Starts the real gateway behind the real HTTP front, as src/main.ts does, on an ephemeral loopback
 * port. Settings not given take their defaults, except CORS: no allow-list unless the test gives
 * one, since the development default (any origin) would hide what the CORS tests look for.
 */
export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  const gateway = createGateway({ corsOrigins: [], ...options });
  const server = createHttpServer(gateway, settingsWith(options));
  const metricsServer = createMetricsServer(gateway.metrics);
  const [port, metricsPort] = await Promise.all([listen(server, 0, '127.0.0.1'), listen(metricsServer, 0, '127.0.0.1')]);
  const url = `http://127.0.0.1:${port}/graphql`;
  return {
    url,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    server,
    async graphql(query, { variables, headers } = {}) {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
        body: JSON.stringify({ query, variables }),
      });
      return { status: response.status, headers: response.headers, body: (await response.json()) as GraphQLAnswer['body'] };
    },
    async close() {
      await Promise.all([closed(server), closed(metricsServer)]);
      await gateway.close();
    },
  };
}
