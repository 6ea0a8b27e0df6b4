import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { Settings } from '../config/settings.js';
import { ErrorCode } from '../errors.js';

/**
 * The node:http server in front of the Yoga handler. It enforces the body limit here, where it
 * is cheap: a declared Content-Length is checked before a byte is read, and only a chunked body
 * (no Content-Length) is counted as it arrives. Yoga's own limit is switched off (see
 * `maxRequestBodySize` in src/gateway.ts) because it pipes every body through an extra stream.
 */
export function createHttpServer(handler: RequestListener, { maxBodyBytes }: Pick<Settings, 'maxBodyBytes'>): Server {
  return createServer((req, res) => {
    const declared = req.headers['content-length'];
    // Node's parser has already rejected malformed lengths and Content-Length with Transfer-Encoding.
    if (declared !== undefined) {
      if (Number(declared) > maxBodyBytes) return tooLarge(res, maxBodyBytes);
      return handler(req, res);
    }
    if (req.headers['transfer-encoding'] === undefined) return handler(req, res);
    readCapped(req, maxBodyBytes).then(
      (body) => {
        if (body === null) return tooLarge(res, maxBodyBytes);
        // @whatwg-node/server takes an already read body from `req.body`, as behind Express. As a
        // stream, not a Buffer: it enumerates the keys of a body object, which for a Buffer are its bytes.
        (req as IncomingMessage & { body?: Readable }).body = Readable.from([body]);
        return handler(req, res);
      },
      () => res.destroy(),
    );
  });
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

function tooLarge(res: ServerResponse, limit: number): void {
  const body = JSON.stringify({
    errors: [{ message: `The request body is larger than ${limit} bytes.`, extensions: { code: ErrorCode.PAYLOAD_TOO_LARGE } }],
  });
  // Closing the connection spares reading the rest of an oversized body just to keep it alive.
  res.writeHead(413, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'private, no-store',
    connection: 'close',
  });
  res.end(body);
}
