import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import { gatewayOverUpstream } from '../support/fixtures.js';
import type { RunningGateway } from '../support/gateway.js';
import { envelope, type RecordingUpstream } from '../support/recording-upstream.js';
import { auth, codes, expectNoLeak, KEYS_QUERY, keys } from './harness.js';

/** The circuit breaker per upstream origin: closed -> open -> half-open -> closed (or open again). */
const RESET_MS = 300;

const it = gatewayOverUpstream(undefined, {
  upstreamTimeoutMs: 1_000,
  upstreamRetries: 0,
  breakerMinCalls: 3,
  breakerErrorPercent: 50,
  breakerResetMs: RESET_MS,
});
it.beforeEach(({ upstream }) => {
  upstream.requests.length = 0;
});

const ask = (gateway: RunningGateway) => gateway.graphql(KEYS_QUERY, { headers: auth });
const healthy = (upstream: RecordingUpstream) => upstream.answer(() => ({ body: envelope(keys(1, 2)) }));
const failing = (upstream: RecordingUpstream) => upstream.answer(() => ({ status: 500, body: '' }));

it("4xx answers are the caller's business and never open the breaker", async ({ gateway, upstream }) => {
  upstream.answer(() => ({ status: 404, body: '' }));
  for (let i = 0; i < 6; i++) expect(codes(await ask(gateway))).toEqual(['NOT_FOUND']);
  expect(upstream.requests).toHaveLength(6);
});

it('opens after failures, fails fast without calling the upstream, lets one probe through after BREAKER_RESET_MS, and closes on its success', async ({
  gateway,
  upstream,
}) => {
  // Fresh window: the 404s above count as successes and must age out of the error share.
  failing(upstream);
  for (let i = 0; i < 20 && upstream.requests.length === i; i++) await ask(gateway);
  const sentWhileClosed = upstream.requests.length;
  expect(sentWhileClosed).toBeGreaterThanOrEqual(3);

  healthy(upstream);
  const fastFail = await ask(gateway);
  expect(codes(fastFail)).toEqual(['UPSTREAM_UNAVAILABLE']);
  expect(fastFail.body.errors![0]!.message).toBe(
    'The upstream service is failing, so the gateway has stopped calling it for a short while. Try again later.',
  );
  expectNoLeak(fastFail, upstream);
  expect(upstream.requests).toHaveLength(sentWhileClosed);

  await sleep(RESET_MS + 50);
  const probe = await ask(gateway);
  expect(probe.body.errors).toBeUndefined();
  expect(upstream.requests).toHaveLength(sentWhileClosed + 1);
  expect((await ask(gateway)).body.errors).toBeUndefined();
  expect(upstream.requests).toHaveLength(sentWhileClosed + 2);
});

it('a failed probe opens the breaker again', async ({ gateway, upstream }) => {
  failing(upstream);
  for (let i = 0; i < 20 && upstream.requests.length === i; i++) await ask(gateway);
  await sleep(RESET_MS + 50);
  upstream.requests.length = 0;
  expect(codes(await ask(gateway))).toEqual(['UPSTREAM_ERROR']);
  expect(codes(await ask(gateway))).toEqual(['UPSTREAM_UNAVAILABLE']);
  expect(upstream.requests).toHaveLength(1);
  await sleep(RESET_MS + 50);
  healthy(upstream);
  expect((await ask(gateway)).body.errors).toBeUndefined();
});
