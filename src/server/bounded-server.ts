import { createServer, type IncomingMessage, type RequestListener, type Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { SectionSettings } from '../config/settings.js';
import type { ConnectionCloseReason } from '../observability/metrics.js';

/**
 * A node:http server held to the connection bounds of the `server` settings: how long a client
 * may hold a socket idle between requests (KEEP_ALIVE_TIMEOUT_MS), sending headers
 * (HEADERS_TIMEOUT_MS) or sending a whole request (REQUEST_TIMEOUT_MS), how long and how much of
 * its answers it may leave untaken (SEND_TIMEOUT_MS, MAX_UNREAD_BYTES: see `boundedResponses`), and
 * how many sockets it may hold at once (MAX_CONNECTIONS). Node's defaults (5 minutes for a request,
 * no cap, an answer held for as long as its client reads nothing) let a slow client hold sockets
 * and memory for as long as it likes. Every server of the gateway, the GraphQL front and `/metrics`
 * alike, is made here, so that none of them lacks a bound. `onClosed` counts each connection closed
 * for its answers.
 */
export function boundedServer(
  settings: SectionSettings<'server'>,
  onClosed: (reason: ConnectionCloseReason) => void,
  listener: RequestListener,
): Server {
  const server = createServer(
    {
      keepAliveTimeout: settings.keepAliveTimeoutMs,
      headersTimeout: settings.headersTimeoutMs,
      requestTimeout: settings.requestTimeoutMs,
      // Node checks the two timeouts above on this interval (30 s by default), which would stretch them.
      connectionsCheckingInterval: Math.min(1_000, settings.headersTimeoutMs),
      ServerResponse: boundedResponses(settings, onClosed),
    },
    listener,
  );
  server.maxConnections = settings.maxConnections;
  return server;
}

/**
 * The responses of a bounded server (node:http's `ServerResponse` option), which close their
 * connection, counted, when its client does not take what they write:
 *
 * - SEND_TIMEOUT_MS: bytes have waited that long without one of them being taken. The timer is
 *   the socket's own (`socket.setTimeout`), which Node refreshes on every read and write and holds
 *   back while a write is still leaving (its write queue shrank), so a client reading a long
 *   answer or stream keeps it from firing. When it fires with nothing waiting, the gateway is the
 *   one that is slow (an upstream call between two parts of a stream), and the connection stays.
 *   Yoga's node adapter switches the timer off for an answer in parts (`configureSocket` in
 *   @whatwg-node/server, against a server-wide idle timeout), so each write arms it again.
 * - MAX_UNREAD_BYTES: a write finds more than that waiting for the client, in the answer being
 *   written and in the answers queued behind it (a client may pipeline requests, and Node runs them
 *   all and holds their answers). One answer is taken whole, whatever its size, since it is
 *   already in memory; a stream writes only once the client has taken the part before (Yoga's node
 *   adapter waits for `drain`), so a reading client never meets the bound.
 *
 * docs/security.md, section "Clients that do not read", has the measurements.
 *
 * The connection is reset rather than ended: its client has shown it does not read, and a reset
 * frees the kernel's send buffer too, which an orderly close would keep trying to deliver.
 */
function boundedResponses(
  { sendTimeoutMs, maxUnreadBytes }: SectionSettings<'server'>,
  onClosed: (reason: ConnectionCloseReason) => void,
): typeof ServerResponse {
  /** The unfinished responses of each connection: one, or more when its client pipelines requests. */
  const responses = new WeakMap<Socket, Set<ServerResponse>>();
  const close = (socket: Socket, reason: ConnectionCloseReason) => {
    if (socket.destroyed) return;
    onClosed(reason);
    socket.resetAndDestroy();
  };
  /** What the process holds for the connection that its client has not taken (the kernel's buffers aside). */
  const unread = (socket: Socket) => {
    let bytes = 0;
    for (const response of responses.get(socket) ?? []) bytes += response.writableLength;
    return bytes;
  };
  const armed = (socket: Socket | null) => {
    if (socket && socket.timeout !== sendTimeoutMs) socket.setTimeout(sendTimeoutMs);
  };
  // Listeners shared by every response (Node calls them with the response as `this`): nothing is made per request.
  function forget(this: ServerResponse) {
    responses.get(this.req.socket)?.delete(this);
  }
  function timedOut(this: ServerResponse) {
    if (this.writableLength > 0) close(this.req.socket, 'send_timeout');
  }
  class BoundedResponse extends ServerResponse {
    constructor(req: IncomingMessage, options?: object) {
      // Node passes its high-water mark and body rules as a second argument the types do not list.
      super(...([req, options] as unknown as [IncomingMessage]));
      responses.set(req.socket, (responses.get(req.socket) ?? new Set()).add(this));
      this.on('close', forget);
      // Emitted by Node on the response being sent when the socket's timer fires; with a listener, Node leaves the socket to it.
      this.on('timeout', timedOut);
    }

    override assignSocket(socket: Socket): void {
      super.assignSocket(socket);
      armed(socket);
    }

    override write(chunk: unknown, ...rest: unknown[]): boolean {
      if (!this.#admits(chunk)) return false;
      armed(this.socket);
      return Reflect.apply(super.write, this, [chunk, ...rest]) as boolean;
    }

    override end(chunk?: unknown, ...rest: unknown[]): this {
      if (!this.#admits(chunk)) return this;
      armed(this.socket);
      return Reflect.apply(super.end, this, [chunk, ...rest]) as this;
    }

    /** False, with the connection closed, when bytes are written past MAX_UNREAD_BYTES left unread. */
    #admits(chunk: unknown): boolean {
      const connection = this.req.socket;
      const empty = !(typeof chunk === 'string' || chunk instanceof Uint8Array) || chunk.length === 0;
      if (empty || connection.destroyed || unread(connection) <= maxUnreadBytes) return true;
      close(connection, 'unread_bytes');
      this.destroy();
      return false;
    }
  }
  // A ServerResponse to every listener: what it adds is behaviour, not API.
  return BoundedResponse as unknown as typeof ServerResponse;
}
