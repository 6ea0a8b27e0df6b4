import { describe, expect, it } from 'vitest';
import { useCacheControl } from '../../src/plugins/use-cache-control.js';
import { answering, ENDPOINT, post, send, yogaWith } from '../support/yoga.js';

describe('useCacheControl', () => {
  const yoga = yogaWith([useCacheControl()]);

  it('forbids shared caches to keep a GraphQL answer, data and errors alike', async () => {
    const ok = await post(yoga, { query: '{ hello }' });
    const refused = await post(yoga, { query: '{ nothing }' });
    expect([ok.status, ok.headers['cache-control']]).toEqual([200, 'private, no-store']);
    expect([refused.status, refused.headers['cache-control']]).toEqual([400, 'private, no-store']);
  });

  it('covers answers outside GraphQL too', async () => {
    const missing = await send(yoga, 'http://yoga/nothing');
    expect([missing.status, missing.headers['cache-control']]).toEqual([404, 'private, no-store']);
  });

  it('leaves preflight answers alone: the browser caches them by Access-Control-Max-Age', async () => {
    const preflight = await send(yoga, ENDPOINT, {
      method: 'OPTIONS',
      headers: { origin: 'http://app.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers).not.toHaveProperty('cache-control');
  });

  it("keeps an answer's own policy", async () => {
    const own = yogaWith([answering('body', { 'cache-control': 'public, max-age=31536000, immutable' }), useCacheControl()]);
    expect((await send(own, ENDPOINT)).headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it("replaces the no-cache Yoga gives an event stream, which a shared cache may store, also when Yoga's headers were an object", async () => {
    const stream = yogaWith([answering(':\n\n', { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' }), useCacheControl()]);
    const headers = [...(await stream.fetch(ENDPOINT)).headers];
    expect(headers.filter(([name]) => name.toLowerCase() === 'cache-control')).toEqual([['cache-control', 'private, no-store']]);
  });
});
