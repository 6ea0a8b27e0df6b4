import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import { AUTH, bearer } from '../support/auth.js';
import { gatewayOverUpstream } from '../support/fixtures.js';
import type { TestGateway } from '../support/gateway.js';
import { envelope, type RecordingUpstream } from '../support/recording-upstream.js';
import { apiKeys } from '../support/records.js';
import { codes, expectNoLeak, KEYS_QUERY } from './harness.js';

/**
 * The circuit breaker per upstream origin: closed -> open -> half-open -> closed (or open again),
 * opened only by faults from BREAKER_MIN_CALLERS distinct callers.
 */
const RESET_MS = 300;
const MIN_CALLERS = 3;

const OPTIONS = {
  upstreamTimeoutMs: 1_000,
  upstreamRetries: 0,
  breakerMinCalls: 3,
  breakerMinCallers: MIN_CALLERS,
  breakerErrorPercent: 50,
  breakerResetMs: RESET_MS,
};
const it = gatewayOverUpstream(undefined, OPTIONS);

/** Caller n of the breaker's tests; caller 0 is the tests' usual caller. */
const caller = (n: number) => (n === 0 ? AUTH : bearer(`breaker-caller-${n}`));
const ask = (gateway: TestGateway, n = 0) => gateway.graphql(KEYS_QUERY, { headers: caller(n) });
/** Asks as caller 1, 2, 3, 1, ... while each request still reaches the upstream, up to 20 times. */
async function failUntilOpen(gateway: TestGateway, upstream: RecordingUpstream) {
  for (let i = 0; i < 20 && upstream.requests.length === i; i++) await ask(gateway, (i % MIN_CALLERS) + 1);
}
const healthy = (upstream: RecordingUpstream) => upstream.answer(() => ({ body: envelope(apiKeys(2)) }));
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
  await failUntilOpen(gateway, upstream);
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

it('a failed probe opens the breaker again, whoever sent it', async ({ gateway, upstream }) => {
  failing(upstream);
  await failUntilOpen(gateway, upstream);
  await sleep(RESET_MS + 50);
  const sentWhileClosed = upstream.requests.length;
  expect(codes(await ask(gateway))).toEqual(['UPSTREAM_ERROR']);
  expect(codes(await ask(gateway))).toEqual(['UPSTREAM_UNAVAILABLE']);
  expect(upstream.requests).toHaveLength(sentWhileClosed + 1);
  await sleep(RESET_MS + 50);
  healthy(upstream);
  expect((await ask(gateway)).body.errors).toBeUndefined();
});

it('one caller whose calls all fail with 500 never opens it for the others, however many it sends', async ({ start }) => {
  // Its own gateway: the shared one remembers the failing callers of the tests above for BREAKER_WINDOW_MS.
  const upstream = await start.upstream();
  const gateway = await start.gateway({ upstreamUrl: new URL(upstream.url), ...OPTIONS });
  upstream.answer((request) =>
    request.headers.authorization === caller(9).authorization ? { status: 500, body: '' } : { body: envelope(apiKeys(2)) },
  );
  const aliases = Array.from({ length: 10 }, (_, i) => `m${i}: updateCategory(input: { id: "cat_${i}", name: "N" }) { category { id } }`);
  for (let round = 0; round < 3; round++) {
    const answer = await gateway.graphql(`mutation { ${aliases.join(' ')} }`, { headers: caller(9) });
    expect(codes(answer)).toEqual(Array(10).fill('UPSTREAM_ERROR'));
  }
  for (let i = 0; i < 10; i++) expect(codes(await ask(gateway, 9))).toEqual(['UPSTREAM_ERROR']);
  expect(upstream.requests.filter((request) => request.headers.authorization === caller(9).authorization)).toHaveLength(40);
  const other = await ask(gateway, 1);
  expect(other.body.errors).toBeUndefined();
});
