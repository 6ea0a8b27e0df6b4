import { describe, expect } from 'vitest';
import { gatewayOverUpstream } from '../support/fixtures.js';
import { rawHttp } from '../support/raw-http.js';

/** The root `/`: outside production it leads a browser to GraphiQL; in production it stays 404. */
const it = gatewayOverUpstream();
const rootOf = (url: string) => url.replace(/\/graphql$/, '/');

describe('the root', () => {
  it('outside production redirects to GraphiQL, which a browser then opens', async ({ gateway }) => {
    for (const method of ['GET', 'HEAD']) {
      const answer = await rawHttp(rootOf(gateway.url), { method });
      expect([answer.status, answer.headers.location, answer.body.length]).toEqual([302, '/graphql', 0]);
    }
    const opened = await fetch(rootOf(gateway.url), { headers: { accept: 'text/html,*/*;q=0.8' } });
    expect([opened.url, opened.status, opened.headers.get('content-type')]).toEqual([gateway.url, 200, 'text/html; charset=utf-8']);
    expect(await opened.text()).toContain('<title>Video Management GraphQL</title>');
  });

  it('stays 404 in production, and wherever GraphiQL is not served', async ({ start, upstream }) => {
    const upstreamUrl = new URL(upstream.url);
    for (const options of [{ production: true }, { production: true, graphiql: true }, { graphiql: false }]) {
      const gateway = await start.gateway({ upstreamUrl, ...options });
      expect((await rawHttp(rootOf(gateway.url))).status).toBe(404);
    }
  });
});
