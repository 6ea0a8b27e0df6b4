import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { meros } from 'meros/browser';
import { describe, expect } from 'vitest';
import { graphiqlFetcher } from '../../src/graphiql/fetcher.js';
import { curlCommand, timeAxis, type UpstreamView } from '../../src/graphiql/upstream-tab.js';
import { AUTH, TOKEN } from '../support/auth.js';
import { gatewayOverUpstream } from '../support/fixtures.js';
import { keyNamesQuery, merged, pagesHeldForTheClient, type ReceivedPart } from '../support/incremental.js';
import { envelope } from '../support/recording-upstream.js';
import { apiKeyList, categoryRecord } from '../support/records.js';

/**
 * GraphiQL's fetcher (src/graphiql/fetcher.ts) and the Upstream tab's curl commands
 * (src/graphiql/upstream-tab.ts) against the gateway over real HTTP, in Node: answers in parts
 * handed over as they arrive, what the fetcher shows the tab, and commands that repeat the calls.
 * test/clients/graphiql-browser.test.ts drives the same in GraphiQL itself.
 */
const it = gatewayOverUpstream(apiKeyList(60));

/** The Upstream tab as the fetcher sees it: open or not, and every view it was shown. */
function tab(open: boolean) {
  const views: UpstreamView[] = [];
  return { open, views, show: (view: UpstreamView) => void views.push(view) };
}

const STREAMED = keyNamesQuery(60, { streamed: true });
const urlsOf = (result: unknown) =>
  (result as { extensions?: { upstream?: { calls: Array<{ url: string }> } } }).extensions?.upstream?.calls.map((call) => call.url);

const run = promisify(execFile);

describe("GraphiQL's fetcher", () => {
  it('hands GraphiQL an answer in parts as each arrives, each part holding the calls of all parts so far', async ({
    gateway,
    upstream,
  }) => {
    const held = pagesHeldForTheClient(60);
    upstream.answer(held.script);
    const upstreamTab = tab(true);
    const fetcher = graphiqlFetcher(gateway.url, meros, upstreamTab);
    const answer = (await fetcher(
      { query: STREAMED, operationName: 'StreamedKeyNames' },
      { headers: AUTH },
    )) as AsyncIterable<ReceivedPart>;
    const parts: ReceivedPart[] = [];
    for await (const part of answer) {
      parts.push(part);
      // The next upstream page is answered only now: each part came before the pages after it.
      await held.arrived(parts);
    }
    const urls = ['/api_keys?limit=25', '/api_keys?limit=25&cursor=25', '/api_keys?limit=10&cursor=50'];
    expect(parts.map(urlsOf).at(-1)).toEqual(urls);
    expect(upstreamTab.views.map((view) => view.upstream?.calls.length)).toEqual(parts.map(urlsOf).map((calls) => calls?.length));
    expect(upstreamTab.views.at(-1)).toMatchObject({ run: 1, parts: parts.length, streaming: false });
    expect(upstreamTab.views.slice(0, -1).every((view) => view.streaming)).toBe(true);

    upstream.answer(apiKeyList(60));
    const plain = await gateway.graphql(keyNamesQuery(60, { streamed: false }), { headers: AUTH });
    expect(merged(parts)).toEqual(plain.body);
  });

  it('ends the request when GraphiQL stops listening (its Stop button), while it awaits a part', async ({ gateway, upstream }) => {
    const held = pagesHeldForTheClient(60);
    upstream.answer(held.script);
    const answer = (await graphiqlFetcher(
      gateway.url,
      meros,
      tab(true),
    )({ query: STREAMED }, { headers: AUTH })) as AsyncGenerator<ReceivedPart>;
    expect((await answer.next()).done).toBe(false);
    // The next part waits for the second upstream page, which is never answered.
    const awaited = answer.next();
    await expect.poll(() => upstream.requests.length).toBe(2);
    expect(await Promise.all([awaited, answer.return(undefined)])).toEqual([
      { done: true, value: undefined },
      { done: true, value: undefined },
    ]);
  });

  it('asks for the calls of every run, never of the schema, and shows them in the result only while the tab is open or the Headers tab asks', async ({
    gateway,
  }) => {
    const query = '{ apiKeys(first: 1) { nodes { id } } }';
    const call = expect.objectContaining({ url: '/api_keys?limit=1' });
    // Closed, the tab is shown the calls all the same, for when it is opened; the result is an app's, with
    // what the run cost, which GraphiQL's asking for the calls shows.
    const closed = tab(false);
    const quiet = await graphiqlFetcher(gateway.url, meros, closed)({ query }, { headers: AUTH });
    expect([quiet, closed.views]).toEqual([
      { data: { apiKeys: { nodes: [{ id: 'k1' }] } }, extensions: { cost: { estimatedCalls: 1, actualCalls: 1 } } },
      [{ run: 1, upstream: { calls: [call] }, parts: 1, streaming: false }],
    ]);
    const open = tab(true);
    const shown = await graphiqlFetcher(gateway.url, meros, open)({ query }, { headers: AUTH });
    expect([urlsOf(shown), open.views]).toEqual([
      ['/api_keys?limit=1'],
      [{ run: 1, upstream: { calls: [call] }, parts: 1, streaming: false }],
    ]);
    // Asked for in the Headers tab, here under another spelling, the calls stay in the result with the tab closed too.
    const askedInPane = await graphiqlFetcher(gateway.url, meros, closed)({ query }, { headers: { ...AUTH, 'X-Debug-Upstream': '1' } });
    expect(urlsOf(askedInPane)).toEqual(['/api_keys?limit=1']);

    const schema = await graphiqlFetcher(gateway.url, meros, open)({ query: '{ __typename }', operationName: 'IntrospectionQuery' });
    expect([schema, open.views.length]).toEqual([{ data: { __typename: 'Query' } }, 1]);

    // Accept: multipart/mixed from the Headers tab is answered in parts, which the fetcher reads; closed, the tab has their calls alone.
    const streamed = tab(false);
    const parts = (await graphiqlFetcher(
      gateway.url,
      meros,
      streamed,
    )({ query: STREAMED }, { headers: { ...AUTH, Accept: 'multipart/mixed' } })) as AsyncIterable<ReceivedPart>;
    const received: ReceivedPart[] = [];
    for await (const part of parts) received.push(part);
    expect(received.length).toBeGreaterThan(1);
    expect(received.map(urlsOf)).toEqual(received.map(() => undefined));
    expect(streamed.views.at(-1)!.upstream!.calls.map((shownCall) => shownCall.url)).toEqual([
      '/api_keys?limit=25',
      '/api_keys?limit=25&cursor=25',
      '/api_keys?limit=10&cursor=50',
    ]);
  });
});

describe('the Upstream tab’s curl commands', () => {
  /** What an upstream request was, as the gateway or a command sent it. */
  const sent = (requests: Array<{ method: string; path: string; query: unknown; headers: Record<string, unknown>; body: unknown }>) =>
    requests.map((request) => [request.method, request.path, request.query, request.headers.authorization, request.body]);
  /** Runs a command as a shell where the placeholders are set. */
  const inShell = (command: string, upstreamUrl: string, body = '') =>
    run('sh', ['-c', command], { env: { PATH: process.env.PATH, UPSTREAM_URL: upstreamUrl, TOKEN, BODY: body } });

  it('send, with $UPSTREAM_URL and $TOKEN set, the very requests the gateway sent, a write’s body included, and name neither itself', async ({
    gateway,
    upstream,
  }) => {
    const read = await gateway.graphql('{ apiKeys(first: 60) { nodes { id } } }', { headers: { ...AUTH, 'x-debug-upstream': '1' } });
    const reads = sent(upstream.requests.splice(0));
    upstream.answer(() => ({ body: envelope(categoryRecord()) }));
    const rename = 'mutation { updateCategory(input: { id: "cat_1", name: "It\'s new" }) { category { id } } }';
    const write = await gateway.graphql(rename, { headers: { ...AUTH, 'x-debug-upstream': '1' } });
    const writes = sent(upstream.requests.splice(0));
    const dryRun = await gateway.graphql(rename, { headers: { ...AUTH, 'x-debug-upstream': 'dry-run' } });
    expect(upstream.requests).toEqual([]);

    const commands = [...read.body.extensions!.upstream.calls, ...write.body.extensions!.upstream.calls].map((call) => curlCommand(call));
    const [built] = dryRun.body.extensions!.upstream.dryRuns;
    commands.push(curlCommand({ method: built.method, url: built.path, body: built.body }));
    expect(commands).toEqual([
      `curl "$UPSTREAM_URL"'/api_keys?limit=25' -H "Authorization: Bearer $TOKEN"`,
      `curl "$UPSTREAM_URL"'/api_keys?limit=25&cursor=25' -H "Authorization: Bearer $TOKEN"`,
      `curl "$UPSTREAM_URL"'/api_keys?limit=10&cursor=50' -H "Authorization: Bearer $TOKEN"`,
      `curl -X PATCH "$UPSTREAM_URL"'/categories/cat_1' -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' --data-raw '{"name":"It'\\''s new"}'`,
      `curl -X PATCH "$UPSTREAM_URL"'/categories/cat_1' -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' --data-raw '{"name":"It'\\''s new"}'`,
    ]);
    for (const command of commands) await inShell(command, upstream.url);
    expect(sent(upstream.requests)).toEqual([...reads, ...writes, ...writes]);
    expect(commands.join('\n')).not.toContain(TOKEN);
    // A write whose body was too large to show sends $BODY.
    const unshown = curlCommand({ method: 'PATCH', url: '/categories/cat_1', bodyBytes: 5000 });
    await inShell(unshown, upstream.url, JSON.stringify({ name: "It's new" }));
    expect([unshown, sent(upstream.requests.splice(-1))]).toEqual([
      `curl -X PATCH "$UPSTREAM_URL"'/categories/cat_1' -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' --data-raw "$BODY"`,
      writes,
    ]);
    // A redacted query value goes out as written: curl does not read `[redacted]` as a range of URLs.
    const redacted = curlCommand({ method: 'GET', url: '/api_keys?signature=[redacted]' });
    await inShell(redacted, upstream.url);
    expect([redacted, upstream.requests.at(-1)!.query]).toEqual([
      `curl --globoff "$UPSTREAM_URL"'/api_keys?signature=[redacted]' -H "Authorization: Bearer $TOKEN"`,
      { signature: '[redacted]' },
    ]);
  });
});

describe('the Upstream tab’s time axis', () => {
  it('runs from 0 to a round number at or past the last call’s end, in two to five steps of 1, 2 or 5 times a power of ten', () => {
    expect([28.2, 7, 4000, 4001, 1.5, 0.3, 0].map(timeAxis)).toEqual([
      { endMs: 30, ticks: [0, 10, 20, 30] },
      { endMs: 8, ticks: [0, 2, 4, 6, 8] },
      { endMs: 4000, ticks: [0, 1000, 2000, 3000, 4000] },
      { endMs: 6000, ticks: [0, 2000, 4000, 6000] },
      { endMs: 1.5, ticks: [0, 0.5, 1, 1.5] },
      { endMs: 1, ticks: [0, 0.5, 1] },
      { endMs: 1, ticks: [0, 0.5, 1] },
    ]);
  });
});
