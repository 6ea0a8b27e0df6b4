import { type IncomingHttpHeaders, request } from 'node:http';

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body exactly as it came over the wire (still compressed, if it was). */
  body: Buffer;
}

export interface RawRequest {
  method?: string;
  headers?: Record<string, string | number>;
  /** Sent with Content-Length, or chunked (Transfer-Encoding) when given as several chunks. */
  body?: string | string[];
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
      { method, headers: { ...(typeof body === 'string' ? { 'content-length': Buffer.byteLength(body) } : {}), ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (chunked) for (const chunk of body) req.write(chunk);
    req.end(chunked ? undefined : body);
  });
}

/** A GraphQL POST body as JSON text. */
export const graphqlBody = (query: string, variables?: Record<string, unknown>) => JSON.stringify({ query, variables });
