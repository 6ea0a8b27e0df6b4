import * as crypto from 'node:crypto';
import { expect, it, vi } from 'vitest';
import { useUpstreamDebug } from '../../src/plugins/use-upstream-debug.js';
import { ENDPOINT, yogaWith } from '../support/yoga.js';

// The comparison itself, watched: what it is given is the one thing that differs between keys of
// different lengths, and no test may time it.
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});

/**
 * useUpstreamDebug's key, alone (what a request sees is test/http/upstream-debug.test.ts): in
 * production each key a request gives is compared with DEBUG_UPSTREAM_KEY in full, through digests
 * of one length, so that how long the answer takes tells nothing of the key's length either.
 */
const KEY = 'a-debugging-key-of-ours';

it('compares every key given, of any length, in constant time with DEBUG_UPSTREAM_KEY, and shows the calls for that key only', async () => {
  const yoga = yogaWith([useUpstreamDebug({ production: true, debugUpstreamKey: KEY })]);
  const compared = vi.mocked(crypto.timingSafeEqual);
  const seen = [];
  for (const given of ['k', `${KEY}-and-more`, KEY.replace(/.$/, 'X'), KEY]) {
    compared.mockClear();
    const response = await yoga.fetch(ENDPOINT, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-debug-upstream': `1; key=${given}` },
      body: JSON.stringify({ query: '{ hello }' }),
    });
    const { extensions } = (await response.json()) as { extensions?: unknown };
    seen.push({ given, lengths: compared.mock.calls.map((buffers) => buffers.map((buffer) => buffer.byteLength)), shown: extensions });
  }
  expect(seen).toEqual([
    { given: 'k', lengths: [[32, 32]], shown: undefined },
    { given: `${KEY}-and-more`, lengths: [[32, 32]], shown: undefined },
    { given: KEY.replace(/.$/, 'X'), lengths: [[32, 32]], shown: undefined },
    { given: KEY, lengths: [[32, 32]], shown: { upstream: { calls: [] } } },
  ]);
});
