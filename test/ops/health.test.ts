import { describe, expect } from 'vitest';
import { AUTH } from '../support/auth.js';
import { test as it, type Start } from '../support/fixtures.js';
import type { TestGateway } from '../support/gateway.js';
import { envelope, type RecordingUpstream } from '../support/recording-upstream.js';

const KEYS = 'query Keys { apiKeys(first: 1) { edges { node { id } } } }';
// The circuit opens at the first failed call, and a failed GET is not retried.
const TRIGGER_HAPPY = { breakerMinCalls: 1, breakerMinCallers: 1, breakerErrorPercent: 1, upstreamRetries: 0 };

const gatewayBefore = (start: Start, upstream: RecordingUpstream): Promise<TestGateway> =>
  start.gateway({ upstreamUrl: new URL(upstream.url), ...TRIGGER_HAPPY });

async function get(gateway: TestGateway, path: string) {
  const response = await fetch(gateway.url.replace(/\/graphql$/, path));
  return { status: response.status, body: await response.text() };
}

describe('/health and /ready', () => {
  it('are both 200 while the upstream answers, and ask the upstream nothing', async ({ start }) => {
    const upstream = await start.upstream(() => ({ body: envelope([]) }));
    const gateway = await gatewayBefore(start, upstream);
    expect(await get(gateway, '/health')).toEqual({ status: 200, body: '' });
    expect(await get(gateway, '/ready')).toEqual({ status: 200, body: '{"status":"ready"}' });
    expect(upstream.requests).toEqual([]);
  });

  it('stay 200 with the circuit open and the upstream gone: callers get a clear UPSTREAM_UNAVAILABLE rather than no replica', async ({
    start,
  }) => {
    const upstream = await start.upstream();
    await upstream.close();
    const gateway = await gatewayBefore(start, upstream);
    const failed = await gateway.graphql(KEYS, { headers: AUTH });
    expect((failed.body.errors![0]!.extensions as { code: string }).code).toBe('UPSTREAM_UNAVAILABLE');
    const fast = await gateway.graphql(KEYS, { headers: AUTH });
    expect(fast.body.errors![0]!.message).toBe(
      'The upstream service is failing, so the gateway has stopped calling it for a short while. Try again later.',
    );
    expect(await get(gateway, '/ready')).toEqual({ status: 200, body: '{"status":"ready"}' });
    expect(await get(gateway, '/health')).toEqual({ status: 200, body: '' });
  });
});
