import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext } from 'playwright-core';
import { afterAll, expect } from 'vitest';
import { AUTH } from '../support/auth.js';
import { describeInBrowser } from '../support/browser.js';
import { gatewayOverUpstream } from '../support/fixtures.js';
import type { TestGateway } from '../support/gateway.js';
import { keyNamesQuery, merged, pagesHeldForTheClient, type ReceivedPart } from '../support/incremental.js';
import { envelope } from '../support/recording-upstream.js';
import { apiKeyList, apiKeyRecord, folderRecord } from '../support/records.js';

/**
 * A browser app on another origin calls the gateway with a bearer token, in Debian's headless
 * Chromium: real preflights, real CORS enforcement. Origins differ by port, all on 127.0.0.1.
 */

/** Serves one empty HTML page, the "frontend app" whose origin is under test. */
async function startAppOrigin(): Promise<{ origin: string; server: Server }> {
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>app</title>'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

// The app origins exist before the gateway, whose allow-list names one of them.
const [listedApp, otherApp] = await Promise.all([startAppOrigin(), startAppOrigin()]);
afterAll(() => {
  for (const app of [listedApp, otherApp]) {
    app.server.closeAllConnections();
    app.server.close();
  }
});
const it = gatewayOverUpstream(() => ({ body: envelope([apiKeyRecord(1)]) }), { corsOrigins: [listedApp.origin] });

/** Opens the app's page and has it POST a query to the gateway with fetch, as a frontend would. */
async function queryFrom({ browser, gateway }: { browser: BrowserContext; gateway: TestGateway }, origin: string) {
  const page = await browser.newPage();
  try {
    await page.goto(`${origin}/`);
    return await page.evaluate(
      async ({ url, token }) => {
        try {
          const response = await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: token, 'x-request-id': 'browser-req-1' },
            body: JSON.stringify({ query: '{ apiKeys(first: 1) { nodes { id name } } }' }),
          });
          return { status: response.status, body: await response.json(), requestId: response.headers.get('x-request-id') };
        } catch (error) {
          return { failed: String(error) };
        }
      },
      { url: gateway.url, token: AUTH.authorization },
    );
  } finally {
    await page.close();
  }
}

describeInBrowser('a page on another origin', () => {
  it('on the allow-list queries the gateway with its bearer token and reads the answer', async ({ browser, gateway, upstream }) => {
    const answer = await queryFrom({ browser, gateway }, listedApp.origin);
    expect(answer).toEqual({
      status: 200,
      body: { data: { apiKeys: { nodes: [{ id: 'k1', name: 'Key 1' }] } } },
      requestId: 'browser-req-1',
    });
    expect(upstream.requests.map((r) => [r.method, r.path, r.query, r.headers.authorization])).toEqual([
      ['GET', '/v2/api_keys', { limit: '1' }, AUTH.authorization],
    ]);
  });

  it('on the allow-list reads the headers RETURN_HEADERS gives back, which CORS exposes, and no other', async ({ browser, start }) => {
    const upstream = await start.upstream(() => ({ body: envelope([apiKeyRecord(1)]), headers: { 'ratelimit-remaining': '7' } }));
    const gateway = await start.gateway({
      upstreamUrl: new URL(upstream.url),
      corsOrigins: [listedApp.origin],
      returnHeaders: ['ratelimit-remaining'],
    });
    const page = await browser.newPage();
    try {
      await page.goto(`${listedApp.origin}/`);
      const read = await page.evaluate(
        async ({ url, token }) => {
          const response = await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: token },
            body: JSON.stringify({ query: '{ apiKeys(first: 1) { nodes { id } } }' }),
          });
          await response.json();
          return { remaining: response.headers.get('ratelimit-remaining'), date: response.headers.get('date') };
        },
        { url: gateway.url, token: AUTH.authorization },
      );
      // `Date` is on the answer too, but not exposed: a page cannot read it.
      expect(read).toEqual({ remaining: '7', date: null });
    } finally {
      await page.close();
    }
  });

  it('on the allow-list sends a mutation with an Idempotency-Key twice: one write, and it reads Idempotent-Replayed, which CORS exposes', async ({
    browser,
    start,
  }) => {
    const upstream = await start.upstream(() => ({ status: 201, body: envelope(folderRecord()) }));
    const gateway = await start.gateway({ upstreamUrl: new URL(upstream.url), corsOrigins: [listedApp.origin] });
    const page = await browser.newPage();
    try {
      await page.goto(`${listedApp.origin}/`);
      const read = await page.evaluate(
        async ({ url, token }) => {
          const key = crypto.randomUUID();
          const send = async () => {
            const response = await fetch(url, {
              method: 'POST',
              headers: { 'content-type': 'application/json', authorization: token, 'idempotency-key': key },
              body: JSON.stringify({ query: 'mutation { createFolder(input: { name: "Docs" }) { folder { id } } }' }),
            });
            return { body: await response.json(), replayed: response.headers.get('idempotent-replayed') };
          };
          return [await send(), await send()];
        },
        { url: gateway.url, token: AUTH.authorization },
      );
      const body = { data: { createFolder: { folder: { id: 'fld_1' } } } };
      expect(read).toEqual([
        { body, replayed: null },
        { body, replayed: 'true' },
      ]);
      expect(upstream.requests.map(({ method, path }) => `${method} ${path}`)).toEqual(['POST /v2/folders']);
    } finally {
      await page.close();
    }
  });

  it('on the allow-list asks for its upstream calls (X-Debug-Upstream) and reads them and Server-Timing, which CORS exposes', async ({
    browser,
    gateway,
  }) => {
    const page = await browser.newPage();
    try {
      await page.goto(`${listedApp.origin}/`);
      const read = await page.evaluate(
        async ({ url, token }) => {
          const ask = async (headers: Record<string, string>) => {
            const response = await fetch(url, {
              method: 'POST',
              headers: { 'content-type': 'application/json', authorization: token, ...headers },
              body: JSON.stringify({ query: '{ apiKeys(first: 1) { nodes { id } } }' }),
            });
            const body = await response.json();
            return {
              timing: response.headers.get('server-timing'),
              urls: body.extensions?.upstream?.calls.map((call: { url: string }) => call.url),
            };
          };
          return [await ask({ 'x-debug-upstream': '1' }), await ask({})];
        },
        { url: gateway.url, token: AUTH.authorization },
      );
      // The header is sent after a preflight that allows it; without it there is nothing to read.
      expect(read).toEqual([
        { timing: expect.stringMatching(/^upstream;dur=[\d.]+;desc="1 call"$/), urls: ['/api_keys?limit=1'] },
        { timing: null, urls: undefined },
      ]);
    } finally {
      await page.close();
    }
  });

  it('off the allow-list is stopped by the browser at the preflight: nothing reaches the upstream', async ({
    browser,
    gateway,
    upstream,
  }) => {
    const answer = await queryFrom({ browser, gateway }, otherApp.origin);
    expect(answer).toEqual({ failed: 'TypeError: Failed to fetch' });
    expect(upstream.requests).toEqual([]);
  });

  it('on the allow-list reads a streamed list part by part: each upstream page reaches the page before the next is answered', async ({
    browser,
    gateway,
    upstream,
  }) => {
    const held = pagesHeldForTheClient(100);
    upstream.answer(held.script);
    const parts: ReceivedPart[] = [];
    const page = await browser.newPage();
    try {
      await page.exposeFunction('partArrived', async (part: ReceivedPart) => {
        parts.push(part);
        await held.arrived(parts);
      });
      await page.goto(`${listedApp.origin}/`);
      const answer = await page.evaluate(
        async ({ url, token, query }) => {
          const response = await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'multipart/mixed', authorization: token },
            body: JSON.stringify({ query }),
          });
          // The smallest multipart reader: parts end at the boundary line, their JSON after a blank line.
          const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
          let text = '';
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            text += value;
            let end = text.indexOf('\r\n---', 1);
            while (end > -1) {
              const part = text.slice(0, end);
              text = text.slice(end + 5);
              const json = part.indexOf('\r\n\r\n');
              if (json > -1)
                await (window as unknown as { partArrived(part: unknown): Promise<void> }).partArrived(JSON.parse(part.slice(json + 4)));
              end = text.indexOf('\r\n---');
            }
          }
          return { status: response.status, type: response.headers.get('content-type') };
        },
        {
          url: gateway.url,
          token: AUTH.authorization,
          query: keyNamesQuery(100, { streamed: true }),
        },
      );
      expect(answer).toEqual({ status: 200, type: 'multipart/mixed; boundary="-"' });
    } finally {
      await page.close();
    }
    upstream.answer(apiKeyList(100));
    const plain = await gateway.graphql(keyNamesQuery(100, { streamed: false }), { headers: AUTH });
    // Ended at all: each page was answered only once the page had shown the edges before it.
    expect(merged(parts)).toEqual(plain.body);
  });
});
