// In-process HTTP implementation of the upstream REST contract (v2), used by
// tests, local development and benchmarks in place of the real service.

import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createStore, OWNER_ID, type Store } from './data.js';
import { HttpError, matchRoute } from './routes.js';
import type { ApiError } from './validate.js';

export const SANDBOX_TOKEN = 'sandbox-token';

export interface SandboxOptions {
  port?: number;
  host?: string;
  /** Delay added before every response, to imitate a remote service. */
  latencyMs?: number;
}

export interface Sandbox {
  /** Base URL ending in /v2, e.g. http://127.0.0.1:4010/v2 */
  url: string;
  /** A bearer token that the sandbox accepts; it maps to the seeded owner. */
  token: string;
  close(): Promise<void>;
}

interface Envelope {
  success: boolean;
  result: unknown;
  errors: ApiError[];
  links: Record<string, string>;
}

const MAX_BODY_BYTES = 1024 * 1024;

/** Any non-empty token is accepted; distinct tokens act as distinct users. */
function callerIdFor(token: string): string {
  if (token === SANDBOX_TOKEN) return OWNER_ID;
  return `usr_${createHash('sha256').update(token).digest('hex').slice(0, 12)}`;
}

function bearerToken(header: string | undefined): string | null {
  const token = /^Bearer\s+(.*)$/i.exec(header ?? '')?.[1]?.trim();
  return token ? token : null;
}

/** Resolves to null when the body exceeds the limit; the rest is drained so keep-alive survives. */
async function readBody(req: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  }
  return size > MAX_BODY_BYTES ? null : Buffer.concat(chunks);
}

function parseJsonObject(raw: Buffer): Record<string, unknown> {
  // A missing body is treated like {} so an empty PATCH is a no-op.
  if (raw.length === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    value = undefined;
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    return value as Record<string, unknown>;
  }
  throw new HttpError(400, [{ code: 'invalid_json', message: 'Request body must be a JSON object' }]);
}

async function handle(req: IncomingMessage, store: Store, fallbackHost: string): Promise<Envelope> {
  const raw = await readBody(req);
  const token = bearerToken(req.headers.authorization);
  if (!token) {
    throw new HttpError(401, [{ code: 'unauthorized', message: 'Missing or invalid bearer token' }], { 'WWW-Authenticate': 'Bearer' });
  }
  if (raw === null) {
    throw new HttpError(413, [{ code: 'payload_too_large', message: 'Request body exceeds 1 MiB' }]);
  }

  // Split by hand: new URL() would read a path like "//x/y" as a host name.
  const target = req.url ?? '/';
  const queryStart = target.indexOf('?');
  const path = queryStart < 0 ? target : target.slice(0, queryStart);
  const query = new URLSearchParams(queryStart < 0 ? '' : target.slice(queryStart + 1));

  const match = matchRoute(path);
  if (!match) throw new HttpError(404, [{ code: 'not_found', message: `No resource at ${path}` }]);
  const method = req.method ?? '';
  const handler = Object.hasOwn(match.handlers, method) ? match.handlers[method] : undefined;
  if (!handler) {
    throw new HttpError(405, [{ code: 'method_not_allowed', message: `${method} is not allowed on ${path}` }], {
      Allow: Object.keys(match.handlers).join(', '),
    });
  }

  const reply = handler({
    store,
    params: match.params,
    query,
    host: req.headers.host ?? fallbackHost,
    callerId: callerIdFor(token),
    body: () => parseJsonObject(raw),
  });
  return { success: true, result: reply.result, errors: [], links: reply.links ?? {} };
}

function send(res: ServerResponse, status: number, envelope: Envelope, headers: Record<string, string>): void {
  if (res.destroyed) return; // client went away (or the sandbox closed) during the latency delay
  const json = JSON.stringify(envelope);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(json),
  });
  res.end(json);
}

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const { port = 0, host = '127.0.0.1', latencyMs = 0 } = options;
  const store = createStore();
  let fallbackHost = '';

  const server = createServer((req, res) => {
    void (async () => {
      let status = 200;
      let envelope: Envelope;
      let headers: Record<string, string> = {};
      try {
        envelope = await handle(req, store, fallbackHost);
      } catch (error) {
        if (res.destroyed) return; // the client aborted mid-request; nobody to answer
        const failure =
          error instanceof HttpError ? error : new HttpError(500, [{ code: 'internal_error', message: 'Internal sandbox error' }]);
        if (!(error instanceof HttpError)) console.error('sandbox: unexpected error', error);
        status = failure.status;
        headers = failure.headers;
        envelope = { success: false, result: null, errors: failure.errors, links: {} };
      }
      if (latencyMs > 0) await sleep(latencyMs);
      send(res, status, envelope, headers);
    })();
  });

  const address = await listen(server, port, host);
  // A wildcard bind address is not something a client can dial; use loopback.
  const hostname =
    address.family === 'IPv6'
      ? `[${address.address === '::' ? '::1' : address.address}]`
      : address.address === '0.0.0.0'
        ? '127.0.0.1'
        : address.address;
  fallbackHost = `${hostname}:${address.port}`;

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= new Promise<void>((resolve, reject) => {
      server.close((error) => (error ? reject(error) : resolve()));
      // server.close() alone waits for idle keep-alive sockets to time out.
      server.closeAllConnections();
    }));

  return { url: `http://${fallbackHost}/v2`, token: SANDBOX_TOKEN, close };
}
