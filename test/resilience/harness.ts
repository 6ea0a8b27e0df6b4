import type { ServerResponse } from 'node:http';
import { expect } from 'vitest';
import { ErrorCode } from '../../src/errors.js';
import { AUTH, TOKEN } from '../support/auth.js';
import type { GraphQLAnswer, TestGateway } from '../support/gateway.js';
import { envelope, type RecordingUpstream } from '../support/recording-upstream.js';
import { apiKeys } from '../support/records.js';

export const KEYS_QUERY = '{ apiKeys(first: 2) { nodes { id name } } }';

/** The error codes the gateway documents (src/errors.ts, docs/errors.md); anything else in an answer is a bug. */
export const DOCUMENTED_CODES: ReadonlySet<string> = new Set(Object.values(ErrorCode));

/** The codes of the answer's errors, in order. */
export const codes = (answer: GraphQLAnswer) =>
  (answer.body.errors ?? []).map((e) => (e.extensions as { code?: string } | undefined)?.code);

/** Nothing secret or internal may appear in an answer: the token, the upstream address, a stack, raw HTML. */
export function expectNoLeak(answer: GraphQLAnswer, upstream: RecordingUpstream): void {
  const text = JSON.stringify(answer.body);
  expect(text).not.toContain(TOKEN);
  expect(text).not.toContain(new URL(upstream.url).host);
  expect(text).not.toMatch(/\bat .+\(.*:\d+:\d+\)|node:internal|stack/i);
  expect(text).not.toMatch(/<html|<body/i);
}

/** After a fault the gateway must still answer a healthy request normally. */
export async function expectStillServing(gateway: TestGateway, upstream: RecordingUpstream): Promise<void> {
  upstream.answer(() => ({ body: envelope(apiKeys(2)) }));
  const answer = await gateway.graphql(KEYS_QUERY, { headers: AUTH });
  expect(answer.status).toBe(200);
  expect(answer.body).toEqual({
    data: {
      apiKeys: {
        nodes: [
          { id: 'k1', name: 'Key 1' },
          { id: 'k2', name: 'Key 2' },
        ],
      },
    },
  });
}

/** Writes the status line and headers, then `chunks` one by one, `everyMs` apart, unless the peer went away. */
export function drip(res: ServerResponse, headers: Record<string, string | number>, chunks: string[], everyMs: number): void {
  res.writeHead(200, headers);
  let index = 0;
  const timer = setInterval(() => {
    if (res.destroyed || index === chunks.length) {
      clearInterval(timer);
      if (!res.destroyed) res.end();
      return;
    }
    res.write(chunks[index++]);
  }, everyMs);
  res.on('close', () => clearInterval(timer));
}
