import { type IncomingHttpHeaders, request } from 'node:http';
import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body exactly as it came over the wire (still compressed, if it was). */
  body: Buffer;
  /** Every header line as sent, names in lower case, in order: `headers` keeps only the first of a repeated Content-Type. */
  lines: Array<[string, string]>;
}

export interface RawRequest {
  method?: string;
  headers?: Record<string, string | number>;
  /** Sent with Content-Length, or chunked (Transfer-Encoding) when given as several chunks. */
  body?: string | Buffer | Array<string | Buffer>;
}

/**
 * One HTTP exchange through node:http, which (unlike fetch) sends headers such as Origin as given
 * and neither decompresses nor adds Accept-Encoding.
 */
export function rawHttp(url: string, { method = 'GET', headers = {}, body }: RawRequest = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const chunked = Array.isArray(body);
    const req = request(
      url,
      { method, headers: { ...(body !== undefined && !chunked ? { 'content-length': Buffer.byteLength(body) } : {}), ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        const lines = res.rawHeaders.flatMap((name, index) =>
          index % 2 === 0 ? [[name.toLowerCase(), res.rawHeaders[index + 1]!] as [string, string]] : [],
        );
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), lines }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (chunked) for (const chunk of body) req.write(chunk);
    req.end(chunked ? undefined : body);
  });
}

/** Every Content-Type line of an answer, in order: more than one is a header written twice. */
export const contentTypes = (answer: RawAnswer) => answer.lines.filter(([name]) => name === 'content-type').map(([, value]) => value);

/** The Accept header a browser sends when it opens a page. */
export const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

/** A GraphQL POST body as JSON text. */
export const graphqlBody = (query: string, variables?: Record<string, unknown>) => JSON.stringify({ query, variables });

/** A raw TCP socket to a server, for what an HTTP client cannot send: partial headers, pipelined requests, bodies that never end. */
export interface RawSocket {
  socket: Socket;
  /** Everything received so far. */
  received(): string;
  /** Resolves with the time from the connection until the server closed the socket (or reset it). */
  closed: Promise<number>;
}

/** Opens a TCP connection to the port of `url` on loopback. */
export async function openSocket(url: string): Promise<RawSocket> {
  const socket = connect(Number(new URL(url).port), '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  const started = performance.now();
  let text = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  // A reset is an error on the socket; it is closed all the same.
  socket.on('error', () => {});
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now() - started)));
  return { socket, received: () => text, closed };
}
