import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import type { SectionSettings } from '../config/settings.js';
import { ErrorCode } from '../errors.js';
import type { Gateway } from '../gateway.js';
import { boundedServer } from './bounded-server.js';

/**
 * The node:http server in front of the Yoga handler.
 *
 * It enforces the body limit here, where it is cheap: a declared Content-Length is checked before
 * a byte is read (and before `100 Continue` is sent to a client that waits for it), and only a
 * chunked body (no Content-Length) is counted as it arrives. Yoga's own limit is switched off (see
 * `maxRequestBodySize` in src/gateway.ts) because it pipes every body through an extra stream.
 *
 * A refused body is still being sent when its 413 is written. Closing the socket under a sending
 * client resets the connection, and most clients then report a network error instead of the 413
 * (docs/security.md, section "Refused uploads"). So the rest of the body is read and thrown away first,
 * within bounds (what nginx calls lingering close), and the connection is closed only once nothing
 * is left unread: see LINGER_MAX_BYTES.
 *
 * Its connections are bounded in time and number as every server's are (`boundedServer`).
 */
export function createHttpServer(gateway: Pick<Gateway, 'yoga' | 'headersBeforeYoga'>, settings: SectionSettings<'server'>): Server {
  const { maxBodyBytes } = settings;
  const handler: RequestListener = gateway.yoga;
  // Connections whose answer said `Connection: close`: RFC 9112 (9.6) forbids serving a request
  // pipelined after it, which Node's parser would otherwise hand on while the refused body drains.
  const closing = new WeakSet<Socket>();
  const tooLarge = (req: IncomingMessage, res: ServerResponse) => {
    closing.add(req.socket);
    // Answers written here carry the CORS and security headers Yoga's would, so a page can read them.
    refuseTooLarge(res, maxBodyBytes, gateway.headersBeforeYoga(req.headers.origin));
    discardRest(req, () => res.end());
  };
  // Node's parser has already rejected malformed lengths and Content-Length with Transfer-Encoding.
  const declaredTooLarge = (req: IncomingMessage) => Number(req.headers['content-length'] ?? 0) > maxBodyBytes;
  const server = boundedServer(settings, (req, res) => {
    if (closing.has(req.socket)) return;
    if (req.headers['content-length'] !== undefined) return declaredTooLarge(req) ? tooLarge(req, res) : handler(req, res);
    if (req.headers['transfer-encoding'] === undefined) return handler(req, res);
    readCapped(req, maxBodyBytes).then(
      (body) => {
        if (body === null) return tooLarge(req, res);
        // @whatwg-node/server takes an already read body from `req.body`, as behind Express. As a
        // stream, not a Buffer: it enumerates the keys of a body object, which for a Buffer are its bytes.
        (req as IncomingMessage & { body?: Readable }).body = Readable.from([body]);
        return handler(req, res);
      },
      () => res.destroy(),
    );
  });
  // Without this listener Node sends `100 Continue` itself, inviting a body that will be refused.
  server.on('checkContinue', (req, res) => {
    if (declaredTooLarge(req)) return tooLarge(req, res);
    res.writeContinue();
    server.emit('request', req, res);
  });
  return server;
}

/**
 * The whole body, or null as soon as it passes `limit` bytes. Events rather than `for await`:
 * leaving an async iterator destroys the socket, and the 413 still has to be written to it.
 */
function readCapped(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      req.off('data', onData).off('end', onEnd).pause();
      resolve(null);
    };
    const onEnd = () => resolve(Buffer.concat(chunks, size));
    req.on('data', onData).once('end', onEnd).once('error', reject);
  });
}

/**
 * How much of a refused body is read and thrown away after its 413 before the connection is cut:
 * room for the uploads clients send by mistake (a file in a variable), well beyond any
 * `MAX_BODY_BYTES`' default, while holding no memory (each chunk is dropped as it comes) and
 * costing about as much CPU as reading a body of that size. The time is bounded too, by the
 * request's own REQUEST_TIMEOUT_MS, counted from its first byte (Node's timer, as for any request).
 */
export const LINGER_MAX_BYTES = 16 * 1024 * 1024;

/**
 * Reads the rest of a refused request and drops it, then calls `done`; a body that goes on past
 * LINGER_MAX_BYTES more has its connection cut. Ending the answer only then lets Node close a
 * socket with nothing left unread: a close with unread bytes is sent as a reset, which can reach
 * the client before it has read the 413.
 */
function discardRest(req: IncomingMessage, done: () => void): void {
  let left = LINGER_MAX_BYTES;
  req.on('data', (chunk: Buffer) => {
    left -= chunk.length;
    if (left < 0) req.socket.destroy();
  });
  req.once('end', done).resume();
}

/** Writes the whole 413 without ending the response, which waits for the body to be drained. */
function refuseTooLarge(res: ServerResponse, limit: number, headers: Record<string, string>): void {
  const body = JSON.stringify({
    errors: [{ message: `The request body is larger than ${limit} bytes.`, extensions: { code: ErrorCode.PAYLOAD_TOO_LARGE } }],
  });
  // Closing the connection spares keeping it alive for a client that sends too much.
  res.writeHead(413, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'private, no-store',
    connection: 'close',
  });
  res.write(body);
}
