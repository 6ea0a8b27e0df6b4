import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { sendNodeResponse } from '@whatwg-node/server';
import type { SectionSettings } from '../config/settings.js';
import { ErrorCode } from '../errors.js';
import type { Gateway } from '../gateway.js';
import { isContentCoded } from '../http/content-encoding.js';
import { nodeRequestHeaders } from '../http/node-request-headers.js';
import { boundedServer } from './bounded-server.js';

/**
 * The node:http server in front of the Yoga handler.
 *
 * It enforces the body limit here, where it is cheap: a declared Content-Length is checked before
 * a byte is read (and before `100 Continue` is sent to a client that waits for it), and only a
 * chunked body (no Content-Length) is counted as it arrives. Yoga's own limit is switched off (see
 * `maxRequestBodySize` in src/gateway.ts) because it pipes every body through an extra stream. A
 * compressed body is refused unread too (415, see CONTENT_CODED).
 *
 * A refused body is still being sent when its answer is written. Closing the socket under a sending
 * client resets the connection, and most clients then report a network error instead of the answer
 * (docs/security.md, section "Refused uploads"). So the rest of the body is read and thrown away first,
 * within bounds (what nginx calls lingering close), and the connection is closed only once nothing
 * is left unread: see LINGER_MAX_BYTES.
 *
 * A request that may be a read cache hit (`Gateway.hitPath`) has its body read here, and is
 * answered by the hit path when it is one.
 *
 * Its connections are bounded in time and number as every server's are (`boundedServer`).
 */
export function createHttpServer(
  gateway: Pick<Gateway, 'yoga' | 'refusedBeforeYoga' | 'metrics' | 'hitPath'>,
  settings: SectionSettings<'server'>,
): Server {
  const { maxBodyBytes } = settings;
  const handler = yogaHandler(gateway);
  // Connections whose answer said `Connection: close`: RFC 9112 (9.6) forbids serving a request
  // pipelined after it, which Node's parser would otherwise hand on while the refused body drains.
  const closing = new WeakSet<Socket>();
  /** `arrived`: when the request came, for the duration its log line gives. */
  const refuse = (req: IncomingMessage, res: ServerResponse, refusal: Refusal, arrived: number) => {
    closing.add(req.socket);
    const request = { method: req.method ?? 'GET', headers: nodeRequestHeaders(req), durationMs: performance.now() - arrived };
    writeRefusal(res, refusal, (lines) => gateway.refusedBeforeYoga(request, refusal, lines));
    discardRest(req, () => res.end());
  };
  const tooLarge: Refusal = {
    status: 413,
    code: ErrorCode.PAYLOAD_TOO_LARGE,
    message: `The request body is larger than ${maxBodyBytes} bytes.`,
  };
  // Refused before a byte of the body is read. Node's parser has already rejected malformed
  // lengths and Content-Length with Transfer-Encoding.
  const refusedUnread = (req: IncomingMessage): Refusal | undefined => {
    if (!makesUrl(req.headers.host, req.url)) return NOT_A_HOST;
    if (isContentCoded(req.headers['content-encoding'])) return CONTENT_CODED;
    if (Number(req.headers['content-length'] ?? 0) > maxBodyBytes) return tooLarge;
    return undefined;
  };
  const serve = (req: IncomingMessage, res: ServerResponse, arrived: number) => {
    if (closing.has(req.socket)) return;
    // HEAD is answered as GET would be (GraphiQL for a browser's Accept, the same status and headers),
    // as RFC 9110 (9.3.2) asks: Node already knows the request is HEAD and writes no body.
    if (req.method === 'HEAD') req.method = 'GET';
    const refusal = refusedUnread(req);
    if (refusal) return refuse(req, res, refusal, arrived);
    const hitPath = gateway.hitPath?.mayAnswer(req) ? gateway.hitPath : undefined;
    if (!hitPath && (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] === undefined)) {
      return handler(req, res);
    }
    // @whatwg-node/server takes an already read body from `req.body`, as behind Express. As a
    // stream, not a Buffer: it enumerates the keys of a body object, which for a Buffer are its bytes.
    const toYoga = (body: Buffer) => {
      (req as IncomingMessage & { body?: Readable }).body = Readable.from([body]);
      return handler(req, res);
    };
    readCapped(req, maxBodyBytes).then(
      async (body) => {
        if (body === null) return refuse(req, res, tooLarge, arrived);
        // A failure before anything was written (a lookup) leaves the request to Yoga, which meets it its own way.
        if (hitPath && (await hitPath.answer(req, res, body, arrived).catch(() => res.headersSent))) return;
        return toYoga(body);
      },
      // A body cut short: Yoga answers (400, logged and counted) one it did not read itself as it did one it read.
      () => (hitPath ? toYoga(Buffer.alloc(0)) : res.destroy()),
    );
  };
  const server = boundedServer(settings, gateway.metrics.observeConnectionClosed, (req, res) => serve(req, res, performance.now()));
  // Without this listener Node sends `100 Continue` itself, inviting a body that will be refused.
  server.on('checkContinue', (req, res) => {
    const arrived = performance.now();
    const refusal = refusedUnread(req);
    if (refusal) return refuse(req, res, refusal, arrived);
    res.writeContinue();
    serve(req, res, arrived);
  });
  return server;
}

/**
 * Yoga's node:http handling, as its own request listener does it, but for an error that escapes it:
 * Yoga's listener answers that with a text/plain 500 holding the error's stack, which names the
 * install path. Here it is a JSON 500 that names nothing, finished, logged and counted as every
 * refusal written here, and the socket is cut when the answer had already begun.
 */
function yogaHandler(gateway: Pick<Gateway, 'yoga' | 'refusedBeforeYoga'>): RequestListener {
  return (req, res) => {
    const arrived = performance.now();
    Promise.resolve()
      .then(() => gateway.yoga.handleNodeRequestAndResponse(req, res, { req, res }))
      .then(
        (response) => sendNodeResponse(response, res, req, true),
        () => {
          if (res.headersSent) return res.destroy();
          const request = { method: req.method ?? 'GET', headers: nodeRequestHeaders(req), durationMs: performance.now() - arrived };
          writeRefusal(res, ESCAPED, (lines) => gateway.refusedBeforeYoga(request, ESCAPED, lines));
          res.end();
        },
      )
      .catch(() => res.destroy());
  };
}

/** An answer written here, before Yoga, to a request whose body is not read. */
interface Refusal {
  status: 400 | 413 | 415 | 500;
  code: ErrorCode;
  message: string;
  headers?: Record<string, string>;
}

/**
 * A Host header that is not a host name or address with an optional port (RFC 9110, 7.2), or a
 * request target that is not a path: Yoga makes the request's URL of the two, and answered one
 * that makes none with a 500 and its stack, and routed a Host holding a path (`gw/ready?`) by
 * that path.
 */
const NOT_A_HOST: Refusal = {
  status: 400,
  code: ErrorCode.BAD_REQUEST,
  message: 'The Host header must be a host name or address, with an optional port, and the request target a path.',
};

/** The answer to an error that escaped Yoga: nothing of the error, which may name files and hosts. */
const ESCAPED: Refusal = { status: 500, code: ErrorCode.INTERNAL_SERVER_ERROR, message: 'Unexpected error.' };

/** Hosts (the Host header's values) read already, and whether they make a URL: a bounded few, the same ones again and again. */
const HOSTS_READ = new Map<string, boolean>();
const MAX_HOSTS_READ = 256;

/**
 * Whether Yoga can make the request's URL, `http://<Host><target>`, as @whatwg-node/server makes
 * it, with the same WHATWG URL parser: a host (a name, an IPv4 address or an IP literal in brackets)
 * and an optional port, and a target that is a path. No Host at all is Node's to allow. Hosts
 * already read are known without parsing them again.
 */
function makesUrl(host: string | undefined, target: string | undefined): boolean {
  if (target === undefined || !target.startsWith('/')) return false;
  if (host === undefined) return true;
  let known = HOSTS_READ.get(host);
  if (known === undefined) {
    known = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=]+)(:\d{1,5})?$/.test(host) && URL.canParse(`http://${host}/`);
    if (HOSTS_READ.size >= MAX_HOSTS_READ) HOSTS_READ.clear();
    HOSTS_READ.set(host, known);
  }
  return known;
}

/**
 * A body with a Content-Encoding is refused rather than read as if it were plain (where a gzipped
 * JSON body became "not valid JSON"): the gateway inflates nothing, since an inflated body would
 * pass MAX_BODY_BYTES by the compression ratio. Accept-Encoding says what a request may use instead
 * (RFC 9110, 15.5.16).
 */
const CONTENT_CODED: Refusal = {
  status: 415,
  code: ErrorCode.UNSUPPORTED_CONTENT_ENCODING,
  message: 'The request body must not be compressed: send it without Content-Encoding.',
  headers: { 'accept-encoding': 'identity' },
};

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
 * How much of a refused body is read and thrown away after its answer before the connection is cut:
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
 * the client before it has read its answer.
 */
function discardRest(req: IncomingMessage, done: () => void): void {
  let left = LINGER_MAX_BYTES;
  req.on('data', (chunk: Buffer) => {
    left -= chunk.length;
    if (left < 0) req.socket.destroy();
  });
  req.once('end', done).resume();
}

/**
 * Writes the whole answer without ending the response, which waits for the body to be drained: its
 * header lines finished as every answer's are (`finish`: the request id, the caching policy, the
 * security and CORS headers, so that a page can read it), and logged and counted.
 */
function writeRefusal(
  res: ServerResponse,
  { status, code, message, headers }: Refusal,
  finish: (lines: Record<string, string>) => void,
): void {
  const body = JSON.stringify({ errors: [{ message, extensions: { code } }] });
  const lines: Record<string, string> = {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    // Closing the connection spares keeping it alive for a client that sends what is refused.
    connection: 'close',
  };
  finish(lines);
  res.writeHead(status, lines);
  res.write(body);
}
