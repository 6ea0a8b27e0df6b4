import type { ServerResponse } from 'node:http';
import { meros } from 'meros/browser';
import { expect } from 'vitest';
import type { Script } from './recording-upstream.js';
import { apiKeyList } from './records.js';

/**
 * Reading an answer in parts (`@defer`, `@stream`) as a client would, without a client library:
 * the parts of a `multipart/mixed` body as they arrive, and the result they merge into. The client
 * libraries merge on their own; these are for the tests that look at the parts themselves.
 */

/**
 * The apiKeys page the client and browser tests ask for, with `edges` under `@stream` and
 * `pageInfo` under `@defer`, or plain: the plain answer is what the streamed one must merge into.
 */
export function keyNamesQuery(first: number, { streamed }: { streamed: boolean }): string {
  const edges = `edges${streamed ? ' @stream(initialCount: 25)' : ''} { cursor node { id name } }`;
  const pageInfo = 'pageInfo { hasNextPage endCursor }';
  return `query ${streamed ? 'Streamed' : 'Plain'}KeyNames { apiKeys(first: ${first}) { ${edges} ${streamed ? `... @defer { ${pageInfo} }` : pageInfo} } }`;
}

/** A part of an incremental answer: the first holds `data` (and `errors`), later ones `incremental` results. */
export interface ReceivedPart {
  data?: Record<string, unknown> | null;
  errors?: Array<Record<string, unknown>>;
  incremental?: Array<{
    data?: Record<string, unknown> | null;
    items?: unknown[] | null;
    path: Array<string | number>;
    label?: string;
    errors?: Array<Record<string, unknown>>;
  }>;
  hasNext?: boolean;
}

/** The JSON parts of a multipart/mixed answer, each as soon as it has arrived; throws if the answer is not multipart. */
export async function* partsOf(response: Response): AsyncGenerator<ReceivedPart, void> {
  const parts = await meros<ReceivedPart>(response);
  if (parts instanceof Response) throw new Error(`Not an answer in parts: ${parts.headers.get('content-type')}`);
  for await (const part of parts) {
    if (!part.json) throw new Error(`A part that is not JSON: ${part.body}`);
    yield part.body;
  }
}

/** Every part of a multipart/mixed answer, read to its end. */
export async function allParts(response: Response): Promise<ReceivedPart[]> {
  const parts: ReceivedPart[] = [];
  for await (const part of partsOf(response)) parts.push(part);
  return parts;
}

/**
 * The result the parts merge into, as the incremental delivery RFC merges them: each increment's
 * `items` inserted into the list at its path from the index the path ends with, each deferred
 * `data` merged into the object at its path, every error kept in order.
 */
export function merged(parts: readonly ReceivedPart[]): { data?: Record<string, unknown> | null; errors?: Array<Record<string, unknown>> } {
  const [first, ...later] = parts;
  const data = structuredClone(first?.data);
  const errors = [...(first?.errors ?? [])];
  for (const part of later) {
    for (const increment of part.incremental ?? []) {
      errors.push(...(increment.errors ?? []));
      if ('items' in increment) {
        if (!increment.items) continue;
        const list = at(data, increment.path.slice(0, -1)) as unknown[];
        list.splice(increment.path.at(-1) as number, increment.items.length, ...increment.items);
      } else if (increment.data) {
        deepMerge(at(data, increment.path) as Record<string, unknown>, increment.data);
      }
    }
  }
  return { ...(data === undefined ? {} : { data }), ...(errors.length ? { errors } : {}) };
}

function at(root: unknown, path: ReadonlyArray<string | number>): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], root);
}

function deepMerge(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(source)) {
    const existing = target[key];
    if (existing && value && typeof existing === 'object' && typeof value === 'object' && !Array.isArray(value)) {
      deepMerge(existing as Record<string, unknown>, value as Record<string, unknown>);
    } else {
      target[key] = value;
    }
  }
}

/** How many edges of `apiKeys` the parts so far merge into. */
export const edgesIn = (parts: readonly ReceivedPart[]) =>
  ((merged(parts).data?.apiKeys as { edges?: unknown[] } | undefined)?.edges ?? []).length;

/**
 * A recording upstream's script for `apiKeyList(total)` that holds each page after the first
 * until the client has every edge before it: the test calls `arrived(parts)` with the parts it has
 * received so far, after each one. A gateway, proxy or compression that held the answer back would
 * wait for a page that never comes, so a test that ends shows the parts went out as the pages came
 * in.
 */
export function pagesHeldForTheClient(total: number) {
  const list = apiKeyList(total);
  const release: Array<() => void> = [];
  const script: Script = (request, index) => {
    const answer = list(request);
    if (index === 0) return answer;
    return (res: ServerResponse) =>
      void new Promise<void>((resolve) => (release[index] = resolve)).then(() => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
      });
  };
  return {
    script,
    /** Answers the page the client now waits for, once the gateway has asked for it. */
    async arrived(parts: readonly ReceivedPart[]) {
      const page = edgesIn(parts) / 25;
      if (!Number.isInteger(page) || page < 1 || page >= Math.ceil(total / 25)) return;
      await expect.poll(() => release[page]).toBeTypeOf('function');
      release[page]!();
    },
  };
}
