import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect } from 'vitest';
import { AUTH, bearer } from '../support/auth.js';
import { gatewayOverUpstream, test } from '../support/fixtures.js';
import { envelope } from '../support/recording-upstream.js';
import { apiKeyPage, apiKeys, folderRecord } from '../support/records.js';

/** Identical upstream GETs of one caller in flight at the same time share one upstream call. */
const it = gatewayOverUpstream((request) =>
  request.method === 'POST' ? { body: envelope(folderRecord()), delayMs: 100 } : { body: apiKeyPage(apiKeys(2)), delayMs: 100 },
);

const KEYS = '{ apiKeys(first: 2) { nodes { id name } } }';
/** The keep-alive sockets of the gateway's pool to the upstream (`UpstreamClient`'s default). */
const UPSTREAM_SOCKETS = 128;
/** KEYS's data, from the upstream's two keys. */
const KEYS_DATA = {
  apiKeys: {
    nodes: [
      { id: 'k1', name: 'Key 1' },
      { id: 'k2', name: 'Key 2' },
    ],
  },
};

/** KEYS sent to `gateway` as AUTH's caller, by a request that goes away on `leaving.abort()`; `gone` is the name of its failure. */
function readThatLeaves(gateway: { url: string }): { leaving: AbortController; gone: Promise<unknown> } {
  const leaving = new AbortController();
  const gone = fetch(gateway.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...AUTH },
    body: JSON.stringify({ query: KEYS }),
    signal: leaving.signal,
  }).catch((error: Error) => error.name);
  return { leaving, gone };
}

describe('coalesced reads', () => {
  it('share one upstream call between requests of one caller, and each gets the whole answer', async ({ gateway, upstream }) => {
    const answers = await Promise.all([gateway.graphql(KEYS, { headers: AUTH }), gateway.graphql(KEYS, { headers: AUTH })]);
    expect(answers.map((answer) => answer.body)).toEqual([{ data: KEYS_DATA }, { data: KEYS_DATA }]);
    expect(upstream.requests).toHaveLength(1);
  });

  it('never across callers', async ({ gateway, upstream }) => {
    await Promise.all([gateway.graphql(KEYS, { headers: AUTH }), gateway.graphql(KEYS, { headers: bearer('someone-else') })]);
    expect(upstream.requests.map((request) => request.headers.authorization).toSorted()).toEqual(
      [AUTH.authorization, 'Bearer someone-else'].toSorted(),
    );
  });

  it('never for writes', async ({ gateway, upstream }) => {
    const create = 'mutation { createFolder(input: { name: "F" }) { folder { id } } }';
    await Promise.all([gateway.graphql(create, { headers: AUTH }), gateway.graphql(create, { headers: AUTH })]);
    expect(upstream.requests.map((request) => request.method)).toEqual(['POST', 'POST']);
  });

  it('a request that goes away leaves the call to the one still waiting; the last one to go aborts it', async ({ gateway, upstream }) => {
    const { leaving, gone } = readThatLeaves(gateway);
    // The call is in flight (and answers 100 ms after it arrived) before the second request comes.
    await expect.poll(() => upstream.requests.length, { interval: 5 }).toBe(1);
    const staying = gateway.graphql(KEYS, { headers: AUTH });
    // Nothing outside the gateway shows the second request joining the call; should it join only
    // after the abort, it makes a second upstream call, and the test fails rather than passes.
    await sleep(20);
    leaving.abort();
    expect(await gone).toBe('AbortError');
    expect((await staying).body.data).toEqual(KEYS_DATA);
    expect(upstream.requests).toHaveLength(1);
  });

  test('a request whose read joined a call that gave up at the deadline of the request that made it calls on its own', async ({
    start,
  }) => {
    // The first call takes longer than REQUEST_DEADLINE_MS; any later one answers at once.
    const upstream = await start.upstream((_request, index) => ({ body: apiKeyPage(apiKeys(2)), delayMs: index === 0 ? 700 : 0 }));
    const gateway = await start.gateway({ upstreamUrl: new URL(upstream.url), requestDeadlineMs: 400 });
    const first = gateway.graphql(KEYS, { headers: AUTH });
    await expect.poll(() => upstream.requests.length, { interval: 5 }).toBe(1);
    await sleep(200);
    // Identical and of the same caller: it joins the first's call, but its own deadline is 200 ms after the first's.
    const second = await gateway.graphql(KEYS, { headers: AUTH });
    expect(second.body).toEqual({ data: KEYS_DATA });
    expect((await first).body.errors?.[0]).toMatchObject({
      message: 'The operation used up its deadline of 400 ms before the upstream service answered.',
      extensions: { code: 'UPSTREAM_TIMEOUT' },
    });
    expect(upstream.requests).toHaveLength(2);
  });

  test('a read never joins a call whose requests have all gone, even one still queued for a socket', { timeout: 30_000 }, async ({
    start,
  }) => {
    // Every call waits 800 ms upstream: the pool's 128 sockets, once busy, stay busy while the test runs.
    const upstream = await start.upstream(() => ({ body: apiKeyPage(apiKeys(2)), delayMs: 800 }));
    const gateway = await start.gateway({ upstreamUrl: new URL(upstream.url) });
    const fillers = Array.from({ length: UPSTREAM_SOCKETS }, (_, i) => gateway.graphql(KEYS, { headers: bearer(`filler-${i}`) }));
    await expect.poll(() => upstream.requests.length, { interval: 5, timeout: 20_000 }).toBe(UPSTREAM_SOCKETS);
    // The caller's read waits for a socket; its request goes away before one is free.
    const { leaving, gone } = readThatLeaves(gateway);
    await sleep(100);
    leaving.abort();
    expect(await gone).toBe('AbortError');
    await sleep(100);
    // The same read again, as a browser repeats a fetch it aborted: a call of its own, answered once a socket is free.
    const again = await gateway.graphql(KEYS, { headers: AUTH });
    const filled = await Promise.all(fillers);
    expect(again.body).toEqual({ data: KEYS_DATA });
    expect(filled.map((answer) => answer.body)).toEqual(Array(UPSTREAM_SOCKETS).fill({ data: KEYS_DATA }));
    // The abandoned read was never sent; the one after it was.
    expect(upstream.requests.filter((request) => request.headers.authorization === AUTH.authorization)).toHaveLength(1);
  });
});
