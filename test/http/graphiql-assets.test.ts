import { gunzipSync } from 'node:zlib';
import { describe, expect } from 'vitest';
import { gatewayOverSandbox } from '../support/fixtures.js';
import { rawHttp } from '../support/raw-http.js';

/** GraphiQL as a small page plus static, content-hashed, long-cached assets, all from the gateway. */
const it = gatewayOverSandbox({ graphiql: true });

const page = (url: string) => fetch(url, { headers: { accept: 'text/html' } });
const linked = (html: string) => [...html.matchAll(/(?:src|href)="(\/graphiql\/[^"]+)"/g)].map((match) => match[1]!);

describe('GraphiQL', () => {
  it('is a page of two kilobytes or so that links its script, stylesheet and icon, and is never stored', async ({ gateway }) => {
    const response = await page(gateway.url);
    const html = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    // It holds the caller's token in its header editor: no framing, only the gateway's own scripts.
    expect(
      Object.fromEntries(
        ['content-type', 'x-frame-options', 'referrer-policy', 'x-content-type-options'].map((name) => [name, response.headers.get(name)]),
      ),
    ).toEqual({
      'content-type': 'text/html; charset=utf-8',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
    });
    expect(response.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    // Mostly the example tabs' text: the code is in the assets.
    expect(html.length).toBeLessThan(3072);
    const assets = linked(html);
    expect(assets.map((path) => path.replace(/-[0-9a-f]{16}\./, '-HASH.'))).toEqual([
      '/graphiql/favicon-HASH.ico',
      '/graphiql/graphiql-HASH.css',
      '/graphiql/graphiql-HASH.js',
    ]);
    // The page's options travel as JSON that cannot close its <script> element.
    const options = JSON.parse(/<script type="application\/json" id="graphiql-options">(.*?)<\/script>/s.exec(html)![1]!);
    expect(options).toMatchObject({ title: 'Video Management GraphQL', headers: '{\n  "Authorization": "Bearer sandbox-token"\n}' });
  });

  it('serves each asset gzipped once, cached for a year as immutable, with a strong ETag that answers 304', async ({ gateway }) => {
    const base = gateway.url.replace(/\/graphql$/, '');
    const script = linked(await (await page(gateway.url)).text()).find((path) => path.endsWith('.js'))!;
    const zipped = await rawHttp(base + script, { headers: { 'accept-encoding': 'gzip' } });
    expect(zipped.status).toBe(200);
    expect(zipped.headers).toMatchObject({
      'content-type': 'text/javascript; charset=utf-8',
      'content-encoding': 'gzip',
      'cache-control': 'public, max-age=31536000, immutable',
      etag: `"${/-([0-9a-f]{16})\.js$/.exec(script)![1]}"`,
    });
    const plain = await rawHttp(base + script);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
    expect(zipped.body.length).toBeLessThan(plain.body.length / 3);
    // Monaco's workers are files of their own too, named in the script.
    const workers = [...plain.body.toString('utf8').matchAll(/\/graphiql\/(?:editor|json|graphql)\.worker-[0-9a-f]{16}\.js/g)].map(
      (m) => m[0],
    );
    expect(new Set(workers).size).toBe(3);
    for (const worker of new Set(workers)) expect((await rawHttp(base + worker)).status).toBe(200);

    const again = await rawHttp(base + script, { headers: { 'if-none-match': zipped.headers.etag as string } });
    expect([again.status, again.body.length]).toEqual([304, 0]);
  });

  it('answers 304 to If-None-Match by weak comparison, as RFC 9110 has it: W/ and * match too', async ({ gateway }) => {
    const base = gateway.url.replace(/\/graphql$/, '');
    const script = linked(await (await page(gateway.url)).text()).find((path) => path.endsWith('.js'))!;
    const { etag } = (await rawHttp(base + script)).headers;
    for (const ifNoneMatch of [`W/${etag}`, '*', `W/"stale", W/${etag}`]) {
      const answer = await rawHttp(base + script, { headers: { 'if-none-match': ifNoneMatch, 'accept-encoding': 'gzip' } });
      expect([ifNoneMatch, answer.status, answer.headers.etag, answer.body.length]).toEqual([ifNoneMatch, 304, etag, 0]);
    }
    const stale = await rawHttp(base + script, { headers: { 'if-none-match': 'W/"stale"' } });
    expect([stale.status, stale.body.length > 0]).toEqual([200, true]);
  });

  it('answers 404 for a name it does not hold', async ({ gateway }) => {
    const answer = await rawHttp(gateway.url.replace(/\/graphql$/, '/graphiql/graphiql-0000000000000000.js'));
    expect(answer.status).toBe(404);
  });

  it('keeps /health answering while 40 browsers load it at once', async ({ gateway }) => {
    const loads = Array.from({ length: 40 }, async () => {
      const html = await (await page(gateway.url)).text();
      const sizes = await Promise.all(
        linked(html).map(async (path) => (await fetch(gateway.url.replace(/\/graphql$/, path))).arrayBuffer()),
      );
      return sizes.length;
    });
    const health = await fetch(gateway.url.replace(/\/graphql$/, '/health'));
    expect(health.status).toBe(200);
    expect(await Promise.all(loads)).toEqual(Array(40).fill(3));
  });
});
