// The floor: the least any Node facade must do for apiKeys(first: 25). It reads the request, makes
// one upstream GET over a keep-alive pool, renames the fields, adds cursors and writes JSON. No
// GraphQL, no validation, no error mapping: nothing can serve this page for less in Node.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import type { ApiKeyRecord as ApiKey } from '../src/upstream/records.js';
import { reportToParent } from './probe.js';

const upstream = new URL(process.env.UPSTREAM_URL!);
const pool = new Pool(upstream.origin, { connections: 128, keepAliveTimeout: 30_000 });
const cursor = (index: number) => Buffer.from(`c1:${index}:`).toString('base64url');

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', async () => {
    JSON.parse(Buffer.concat(chunks).toString());
    const answer = await pool.request({
      method: 'GET',
      path: `${upstream.pathname}/api_keys?limit=25`,
      headers: { accept: 'application/json', authorization: req.headers.authorization ?? '' },
    });
    const { result } = (await answer.body.json()) as { result: ApiKey[] };
    const edges = result.map((key, index) => ({
      cursor: cursor(index + 1),
      node: {
        id: key.id,
        name: key.name,
        type: key.type,
        permissions: key.permissions,
        createdBy: key.created_by,
        createdTime: key.created_time,
        updatedBy: key.updated_by,
        updatedTime: key.updated_time,
      },
    }));
    const pageInfo = {
      hasNextPage: true,
      hasPreviousPage: false,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    };
    const body = JSON.stringify({ data: { apiKeys: { edges, pageInfo } } });
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) }).end(body);
  });
});

server.listen(0, '127.0.0.1', () => reportToParent((server.address() as AddressInfo).port));
