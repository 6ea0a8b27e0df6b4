// A fast stand-in for the upstream: the sandbox's seeded API keys, each page serialised once, so
// that the upstream costs as little CPU as possible on a machine it shares with the server under test.
// With API_KEYS=N it serves N keys, the seeded 62 and more like them (for lists of four pages).

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createStore } from '../src/sandbox/data.js';
import { encodeCursor } from '../src/sandbox/routes.js';
import { reportToParent } from './probe.js';

const latencyMs = Number(process.env.LATENCY_MS ?? 0);
const seeded = createStore().apiKeys;
const keys = Array.from({ length: Math.max(seeded.length, Number(process.env.API_KEYS ?? 0)) }, (_, i) => {
  const n = i + 1;
  return seeded[i] ?? { ...seeded[i % seeded.length]!, id: `ak_${String(n).padStart(3, '0')}`, name: `API key ${n}` };
});
const pages = new Map<string, string>();
let folders = 0;
/** Requests answered so far; `GET /requests` tells it, for the benchmark's count of upstream calls. */
let answered = 0;

function page(host: string, limit: number, offset: number): string {
  const key = `${host} ${limit} ${offset}`;
  let body = pages.get(key);
  if (body === undefined) {
    const next = offset + limit;
    const links = next < keys.length ? { next: `http://${host}/v2/api_keys?limit=${limit}&cursor=${encodeCursor(next)}` } : {};
    body = JSON.stringify({ success: true, result: keys.slice(offset, offset + limit), errors: [], links });
    pages.set(key, body);
  }
  return body;
}

function offsetOf(cursor: string | null): number {
  return cursor === null ? 0 : (JSON.parse(Buffer.from(cursor, 'base64url').toString()) as { offset: number }).offset;
}

function folder(name: string): string {
  const now = new Date().toISOString();
  const record = { id: `fld_${++folders}`, name, created_by: 'usr_owner', created_time: now, updated_by: 'usr_owner', updated_time: now };
  return JSON.stringify({ success: true, result: record, errors: [], links: {} });
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    let status = 200;
    let body: string;
    const url = new URL(req.url ?? '/', 'http://upstream');
    if (url.pathname === '/requests') return void res.end(String(answered));
    answered++;
    if (!req.headers.authorization) {
      status = 401;
      body = JSON.stringify({
        success: false,
        result: null,
        errors: [{ code: 'unauthorized', message: 'Missing bearer token' }],
        links: {},
      });
    } else if (req.method === 'GET' && url.pathname === '/v2/api_keys') {
      body = page(req.headers.host ?? '', Number(url.searchParams.get('limit') ?? 25), offsetOf(url.searchParams.get('cursor')));
    } else if (req.method === 'POST' && url.pathname === '/v2/folders') {
      body = folder(String((JSON.parse(Buffer.concat(chunks).toString()) as { name?: unknown }).name));
    } else {
      status = 404;
      body = JSON.stringify({ success: false, result: null, errors: [{ code: 'not_found', message: 'No such resource' }], links: {} });
    }
    const send = () =>
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) }).end(body);
    if (latencyMs > 0) setTimeout(send, latencyMs);
    else send();
  });
});

server.listen(0, '127.0.0.1', () => reportToParent((server.address() as AddressInfo).port));
