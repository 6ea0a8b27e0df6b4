import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { type RunningGateway, startGateway } from '../support/gateway.js';
import { type RecordingUpstream, envelope, startRecordingUpstream } from '../support/recording-upstream.js';
import { KEYS_QUERY, auth, codes, expectNoLeak, keys } from './harness.js';

/** The circuit breaker per upstream origin: closed -> open -> half-open -> closed (or open again). */
const RESET_MS = 300;

let upstream: RecordingUpstream;
let gateway: RunningGateway;

beforeAll(async () => {
  upstream = await startRecordingUpstream();
  gateway = await startGateway({
    upstreamUrl: new URL(upstream.url),
    upstreamTimeoutMs: 1_000,
    limits: { upstreamRetries: 0, breakerMinCalls: 3, breakerErrorPercent: 50, breakerResetMs: RESET_MS },
  });
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.requests.length = 0;
});

const ask = () => gateway.graphql(KEYS_QUERY, { headers: auth });
const healthy = () => upstream.answer(() => ({ body: envelope(keys(1, 2)) }));
const failing = () => upstream.answer(() => ({ status: 500, body: '' }));

it('4xx answers are the caller\'s business and never open the breaker', async () => {
  upstream.answer(() => ({ status: 404, body: '' }));
  for (let i = 0; i < 6; i++) expect(codes(await ask())).toEqual(['NOT_FOUND']);
  expect(upstream.requests).toHaveLength(6);
});

it('opens after failures, fails fast without calling the upstream, lets one probe through after BREAKER_RESET_MS, and closes on its success', async () => {
  // Fresh window: the 404s above count as successes and must age out of the error share.
  failing();
  for (let i = 0; i < 20 && upstream.requests.length === i; i++) await ask();
  const sentWhileClosed = upstream.requests.length;
  expect(sentWhileClosed).toBeGreaterThanOrEqual(3);

  healthy();
  const fastFail = await ask();
  expect(codes(fastFail)).toEqual(['UPSTREAM_UNAVAILABLE']);
  expect(fastFail.body.errors![0]!.message).toBe(
    'The upstream service is failing, so the gateway has stopped calling it for a short while. Try again later.',
  );
  expectNoLeak(fastFail, upstream);
  expect(upstream.requests).toHaveLength(sentWhileClosed);

  await sleep(RESET_MS + 50);
  const probe = await ask();
  expect(probe.body.errors).toBeUndefined();
  expect(upstream.requests).toHaveLength(sentWhileClosed + 1);
  expect((await ask()).body.errors).toBeUndefined();
  expect(upstream.requests).toHaveLength(sentWhileClosed + 2);
});

it('a failed probe opens the breaker again', async () => {
  failing();
  for (let i = 0; i < 20 && upstream.requests.length === i; i++) await ask();
  await sleep(RESET_MS + 50);
  upstream.requests.length = 0;
  expect(codes(await ask())).toEqual(['UPSTREAM_ERROR']);
  expect(codes(await ask())).toEqual(['UPSTREAM_UNAVAILABLE']);
  expect(upstream.requests).toHaveLength(1);
  await sleep(RESET_MS + 50);
  healthy();
  expect((await ask()).body.errors).toBeUndefined();
});
