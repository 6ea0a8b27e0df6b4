import type { ServerResponse } from 'node:http';
import { describe, expect } from 'vitest';
import { defaultSettings } from '../../src/config/settings.js';
import { type UpstreamCall, UpstreamClient, type UpstreamRequest } from '../../src/upstream/client.js';
import { AUTH } from '../support/auth.js';
import { test } from '../support/fixtures.js';
import { freePort } from '../support/ports.js';
import { envelope } from '../support/recording-upstream.js';
import { categoryRecord } from '../support/records.js';

/**
 * Whether an upstream call's request was sent (`UpstreamCall.sent`): what tells a write the upstream
 * never saw from one it may have done. Over real HTTP, each way a call can end.
 */
const WRITE: UpstreamRequest = { method: 'PATCH', route: '/categories/:id', params: { id: 'cat_1' }, body: { name: 'N' } };
const CALLER = { authorization: AUTH.authorization, requestId: 'sent-test' };
const TIMEOUT_MS = 300;

/** A client of `url` (…/v2) with the settings' defaults but a short timeout, and `settings`. */
function client(
  url: string,
  calls: UpstreamCall[],
  { connections, ...settings }: { connections?: number; breakerMinCalls?: number; breakerMinCallers?: number } = {},
) {
  return new UpstreamClient({
    settings: { ...defaultSettings(), upstreamUrl: new URL(url), upstreamTimeoutMs: TIMEOUT_MS, ...settings },
    onCall: (call) => calls.push(call),
    connections,
  });
}

/** What a test reads of a call: whether it was sent, its status and its code. */
const outcome = ({ sent, status, errorCode }: UpstreamCall) => ({ sent, status, errorCode });

describe('a call', () => {
  test('answered: sent, with its status', async ({ start }) => {
    const upstream = await start.upstream(() => ({ body: envelope(categoryRecord()) }));
    const calls: UpstreamCall[] = [];
    const upstreamClient = client(upstream.url, calls);
    try {
      expect(outcome((await upstreamClient.request(WRITE, CALLER)).call)).toEqual({ sent: true, status: 200, errorCode: undefined });
      expect(calls.map(outcome)).toEqual([{ sent: true, status: 200, errorCode: undefined }]);
    } finally {
      await upstreamClient.close();
    }
  });

  test('to an upstream that refuses the connection: not sent', async () => {
    const upstreamClient = client(`http://127.0.0.1:${await freePort()}/v2`, []);
    try {
      const { call } = await upstreamClient.request(WRITE, CALLER);
      expect(outcome(call)).toEqual({ sent: false, status: undefined, errorCode: 'UPSTREAM_UNAVAILABLE' });
    } finally {
      await upstreamClient.close();
    }
  });

  test('received and then cut off, or never answered: sent, without a status', async ({ start }) => {
    const upstream = await start.upstream((_request, index) => (res: ServerResponse) => {
      if (index === 0) res.socket?.destroy();
    });
    const upstreamClient = client(upstream.url, []);
    try {
      expect(outcome((await upstreamClient.request(WRITE, CALLER)).call)).toEqual({
        sent: true,
        status: undefined,
        errorCode: 'UPSTREAM_UNAVAILABLE',
      });
      expect(outcome((await upstreamClient.request(WRITE, CALLER)).call)).toEqual({
        sent: true,
        status: undefined,
        errorCode: 'UPSTREAM_TIMEOUT',
      });
      expect(upstream.requests.map(({ method, path }) => `${method} ${path}`)).toEqual([
        'PATCH /v2/categories/cat_1',
        'PATCH /v2/categories/cat_1',
      ]);
    } finally {
      await upstreamClient.close();
    }
  });

  test('refused by the open circuit, or with its deadline used up: not sent, and the upstream sees nothing', async ({ start }) => {
    const upstream = await start.upstream(() => ({ status: 503, body: { success: false, result: null, errors: [], links: {} } }));
    // One fault of one caller opens it.
    const upstreamClient = client(upstream.url, [], { breakerMinCalls: 1, breakerMinCallers: 1 });
    try {
      expect(outcome((await upstreamClient.request(WRITE, CALLER)).call)).toEqual({ sent: true, status: 503, errorCode: 'UPSTREAM_ERROR' });
      expect(upstreamClient.breakerState).toBe('open');
      expect(outcome((await upstreamClient.request(WRITE, CALLER)).call)).toEqual({
        sent: false,
        status: undefined,
        errorCode: 'UPSTREAM_UNAVAILABLE',
      });
      const deadline = { at: Date.now() - 1, ms: 10 };
      expect(outcome((await upstreamClient.request(WRITE, CALLER, { deadline })).call)).toEqual({
        sent: false,
        status: undefined,
        errorCode: 'UPSTREAM_TIMEOUT',
      });
      expect(upstream.requests).toHaveLength(1);
    } finally {
      await upstreamClient.close();
    }
  });

  test('aborted while it waits for a socket of a full pool: not sent, once the socket is free', async ({ start }) => {
    let received!: () => void;
    const arrived = new Promise<void>((resolve) => (received = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // The first write holds the pool's one socket until the test releases it.
    const body = JSON.stringify(envelope(categoryRecord()));
    const upstream = await start.upstream(() => (res: ServerResponse) => {
      received();
      void released.then(() => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
    });
    const upstreamClient = client(upstream.url, [], { connections: 1 });
    try {
      const holding = upstreamClient.request(WRITE, CALLER);
      await arrived;
      const waiting = new AbortController();
      const queued = upstreamClient.request(WRITE, CALLER, { signal: waiting.signal });
      waiting.abort();
      // undici settles a request aborted in its queue once it reaches a socket, and then sends nothing of it.
      release();
      expect(outcome((await holding).call)).toEqual({ sent: true, status: 200, errorCode: undefined });
      expect(outcome((await queued).call)).toEqual({ sent: false, status: undefined, errorCode: 'UPSTREAM_UNAVAILABLE' });
      expect(upstream.requests).toHaveLength(1);
    } finally {
      await upstreamClient.close();
    }
  });
});
