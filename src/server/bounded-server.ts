import { createServer, type RequestListener, type Server } from 'node:http';
import type { SectionSettings } from '../config/settings.js';

/**
 * A node:http server held to the connection bounds of the `server` settings: how long a client
 * may hold a socket idle between requests (KEEP_ALIVE_TIMEOUT_MS), sending headers
 * (HEADERS_TIMEOUT_MS) or sending a whole request (REQUEST_TIMEOUT_MS), and how many sockets it
 * may hold at once (MAX_CONNECTIONS). Node's defaults (5 minutes for a request, no cap) let a slow
 * client hold sockets for as long as it likes. Every server of the gateway, the GraphQL front and
 * `/metrics` alike, is made here, so that none of them lacks a bound.
 */
export function boundedServer(settings: SectionSettings<'server'>, listener: RequestListener): Server {
  const server = createServer(
    {
      keepAliveTimeout: settings.keepAliveTimeoutMs,
      headersTimeout: settings.headersTimeoutMs,
      requestTimeout: settings.requestTimeoutMs,
      // Node checks the two timeouts above on this interval (30 s by default), which would stretch them.
      connectionsCheckingInterval: Math.min(1_000, settings.headersTimeoutMs),
    },
    listener,
  );
  server.maxConnections = settings.maxConnections;
  return server;
}
