import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defaultSettings } from '../../src/config/settings.js';
import { createGateway, type GatewayOptions } from '../../src/gateway.js';
import { createHttpServer } from '../../src/server/http-server.js';

export interface RunningGateway {
  /** http://127.0.0.1:PORT/graphql */
  url: string;
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
  const server = createHttpServer(gateway.yoga, { maxBodyBytes: options.maxBodyBytes ?? defaultSettings().maxBodyBytes });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  return {
    url,
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
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await gateway.close();
    },
  };
}
