// Incremental delivery: apiKeys(first: 100) over the 20 ms upstream (four pages of 25), one request
// at a time, streamed and not: when the first and the last of its edges reach the client, beside
// one upstream page fetched directly. The three alternate, so that drift touches them alike.

import { meros } from 'meros/browser';
import { apiKeys100, apiKeysQuery, streamedApiKeys100 } from './queries.js';
import { graphql, rest } from './rows.js';
import type { ServerProcess } from './servers.js';

/** Milliseconds from each request's start, one entry per sample. */
export interface IncrementalTimings {
  /** One upstream page, fetched directly. */
  direct: number[];
  /** apiKeys(first: 25) through the gateway. */
  page: number[];
  /** apiKeys(first: 100) unstreamed: every edge at once. */
  unstreamed: number[];
  /** apiKeys(first: 100) streamed: the first edge and the last. */
  first: number[];
  last: number[];
}

export async function measureIncrementalDelivery(
  gateway: ServerProcess,
  upstream: ServerProcess,
  samples: number,
): Promise<IncrementalTimings> {
  const timeDirectPage = async () => {
    const started = performance.now();
    const job = rest(upstream);
    await (await fetch(job.url, { headers: job.headers })).arrayBuffer();
    return performance.now() - started;
  };
  const timeUnstreamed = async (first: number) => {
    const started = performance.now();
    const job = graphql(gateway, first === 100 ? apiKeys100 : apiKeysQuery(first));
    const answer = (await (await fetch(job.url, { method: 'POST', headers: job.headers, body: job.body })).json()) as {
      data?: { apiKeys?: { edges?: unknown[] } };
    };
    if (answer.data?.apiKeys?.edges?.length !== first)
      throw new Error(`unstreamed apiKeys(first: ${first}): ${JSON.stringify(answer).slice(0, 300)}`);
    return performance.now() - started;
  };
  const timeStreamed = async () => {
    const started = performance.now();
    const job = graphql(gateway, streamedApiKeys100, { accept: 'multipart/mixed' });
    const parts = await meros<{
      data?: { apiKeys?: { edges?: unknown[] } };
      incremental?: Array<{ items?: unknown[]; path: unknown[] }>;
      errors?: unknown;
    }>(await fetch(job.url, { method: 'POST', headers: job.headers, body: job.body }));
    if (parts instanceof Response) throw new Error(`streamed apiKeys(first: 100) came whole: ${(await parts.text()).slice(0, 300)}`);
    let edges = 0;
    let first = Number.NaN;
    let last = Number.NaN;
    for await (const { body } of parts) {
      if (typeof body === 'string' || body.errors) throw new Error(`streamed apiKeys(first: 100): ${JSON.stringify(body).slice(0, 300)}`);
      edges += body.data?.apiKeys?.edges?.length ?? 0;
      for (const increment of body.incremental ?? []) if (increment.path[1] === 'edges') edges += increment.items?.length ?? 0;
      if (edges > 0 && Number.isNaN(first)) first = performance.now() - started;
      if (edges === 100 && Number.isNaN(last)) last = performance.now() - started;
    }
    if (edges !== 100) throw new Error(`streamed apiKeys(first: 100) sent ${edges} edges`);
    return { first, last };
  };
  const timings: IncrementalTimings = { direct: [], page: [], unstreamed: [], first: [], last: [] };
  for (let i = 0; i < samples; i++) {
    timings.direct.push(await timeDirectPage());
    timings.page.push(await timeUnstreamed(25));
    timings.unstreamed.push(await timeUnstreamed(100));
    const { first, last } = await timeStreamed();
    timings.first.push(first);
    timings.last.push(last);
  }
  return timings;
}
