import { describe, expect, it } from 'vitest';
import { useCorsVary } from '../../src/plugins/use-cors-vary.js';
import { answering, ENDPOINT, send, yogaWith } from '../support/yoga.js';

/** The Vary header of an answer that carried `vary` (or none) before the plugin. */
async function varyAfter(vary: string | undefined) {
  const yoga = yogaWith([answering('{}', vary === undefined ? {} : { vary }), useCorsVary()]);
  return (await send(yoga, ENDPOINT)).headers.vary;
}

describe('useCorsVary', () => {
  it('says an answer varies by Origin when it named nothing', async () => {
    expect(await varyAfter(undefined)).toBe('Origin');
  });

  it('adds Origin to what an answer already varies by', async () => {
    expect(await varyAfter('Accept-Encoding')).toBe('Accept-Encoding, Origin');
    // A header that merely contains the word is another header.
    expect(await varyAfter('X-Origin-Hint')).toBe('X-Origin-Hint, Origin');
  });

  it('names Origin once, whatever its case and place in the list', async () => {
    expect(await varyAfter('Origin')).toBe('Origin');
    expect(await varyAfter('accept-encoding,ORIGIN')).toBe('accept-encoding,ORIGIN');
    expect(await varyAfter('origin , Accept-Encoding')).toBe('origin , Accept-Encoding');
  });

  it("marks Yoga's CORS answers for an allow-list of one origin, which Yoga does not mark itself", async () => {
    const request = { headers: { origin: 'http://app.example' } };
    const url = `${ENDPOINT}?query={hello}`;
    const without = await send(yogaWith([], { cors: { origin: 'http://app.example' } }), url, request);
    const withPlugin = await send(yogaWith([useCorsVary()], { cors: { origin: 'http://app.example' } }), url, request);
    expect([without.headers['access-control-allow-origin'], without.headers.vary]).toEqual(['http://app.example', undefined]);
    expect([withPlugin.headers['access-control-allow-origin'], withPlugin.headers.vary]).toEqual(['http://app.example', 'Origin']);
  });

  it('on a preflight, adds Access-Control-Request-Headers as well, whether the preflight sent it or not', async () => {
    const cors = { origin: 'http://app.example', methods: ['GET', 'POST'] };
    const preflight = (headers: Record<string, string>) =>
      send(yogaWith([useCorsVary()], { cors }), ENDPOINT, {
        method: 'OPTIONS',
        headers: { origin: 'http://app.example', 'access-control-request-method': 'POST', ...headers },
      });
    const asking = await preflight({ 'access-control-request-headers': 'authorization,x-dtc' });
    const notAsking = await preflight({});
    expect([asking.headers['access-control-allow-headers'], asking.headers.vary]).toEqual([
      'authorization,x-dtc',
      'Access-Control-Request-Headers, Origin',
    ]);
    expect([notAsking.headers['access-control-allow-headers'], notAsking.headers.vary]).toEqual([
      undefined,
      'Origin, Access-Control-Request-Headers',
    ]);
  });
});
