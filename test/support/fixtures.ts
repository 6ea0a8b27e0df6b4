import type { BrowserContext } from 'playwright-core';
import { test as base } from 'vitest';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../src/sandbox/server.js';
import type { StartOptions } from '../../src/server/start.js';
import { launchBrowser } from './browser.js';
import { startTestGateway, type TestGateway } from './gateway.js';
import { type RecordingUpstream, type Script, startRecordingUpstream } from './recording-upstream.js';

/**
 * Shared set-up for tests over real HTTP, as vitest fixtures: each server is started on first use
 * and closed when its scope ends, so no test file writes its own start-up and tear-down.
 *
 * - `gatewayOverUpstream(script, options)`: one recording upstream and one gateway in front of it,
 *   shared by the tests of a file (`({ gateway, upstream }) => ...`). Before each test the upstream
 *   is reset: no requests recorded, answering from `script` again. `sharedUpstream(script)` makes
 *   another such upstream for a file.
 * - `sandboxTest`, `gatewayOverSandbox(options)`: the embedded sandbox, and one gateway in front of
 *   it, per file.
 * - `test` with `start`: servers made inside one test, closed when that test ends.
 * - `browser` (every test API above): headless Chromium in a fresh profile, per file; see browser.ts.
 *   `freshBrowser`: one for a single test, whose profile nothing has visited before (a newcomer's).
 */

/** Returns `server`, closed when the scope of the fixture that made it ends. */
export function closedWith<T extends { close(): Promise<void> }>(onCleanup: (cleanup: () => Promise<void>) => void, server: T): T {
  onCleanup(() => server.close());
  return server;
}

/** Starts servers for one test; all of them are closed when the test ends, whether it passed or not. */
export interface Start {
  upstream(script?: Script): Promise<RecordingUpstream>;
  gateway(options: StartOptions): Promise<TestGateway>;
  sandbox(options?: SandboxOptions): Promise<Sandbox>;
}

export const test = base
  .extend(
    'browser',
    { scope: 'file' },
    async ({}, { onCleanup }): Promise<BrowserContext> => closedWith(onCleanup, await launchBrowser()).context,
  )
  .extend('freshBrowser', async ({}, { onCleanup }): Promise<BrowserContext> => closedWith(onCleanup, await launchBrowser()).context)
  .extend('start', async ({}, { onCleanup }): Promise<Start> => {
    const open: Array<{ close(): Promise<void> }> = [];
    // Closed newest first: a gateway before the upstream it calls.
    onCleanup(async () => {
      for (const server of open.reverse()) await server.close();
    });
    const started = <T extends { close(): Promise<void> }>(server: T): T => {
      open.push(server);
      return server;
    };
    return {
      upstream: async (script) => started(await startRecordingUpstream(script)),
      gateway: async (options) => started(await startTestGateway(options)),
      sandbox: async (options) => started(await startSandbox(options)),
    };
  })
  // The recording upstreams the tests of a file share (sharedUpstream), reset before every test.
  .extend('sharedUpstreams', { scope: 'file' }, (): Set<RecordingUpstream> => new Set())
  .extend('resetSharedUpstreams', { auto: true }, ({ sharedUpstreams }) => {
    for (const upstream of sharedUpstreams) upstream.reset();
  });

/**
 * A file-scoped fixture: a recording upstream shared by the tests of a file, started on first use
 * and closed after the last. Before every test it is reset, so that a test sees only the requests
 * it caused and answers from `script` unless it says otherwise.
 */
export function sharedUpstream(script?: Script) {
  return async (
    { sharedUpstreams }: { sharedUpstreams: Set<RecordingUpstream> },
    { onCleanup }: { onCleanup: (cleanup: () => Promise<void>) => void },
  ): Promise<RecordingUpstream> => {
    const upstream = closedWith(onCleanup, await startRecordingUpstream(script));
    sharedUpstreams.add(upstream);
    return upstream;
  };
}

/** One recording upstream and a gateway in front of it, shared by the tests of a file; the upstream is reset before each test. */
export function gatewayOverUpstream(script?: Script, options: Omit<StartOptions, 'upstreamUrl'> = {}) {
  return test
    .extend('upstream', { scope: 'file' }, sharedUpstream(script))
    .extend(
      'gateway',
      { scope: 'file' },
      async ({ upstream }, { onCleanup }): Promise<TestGateway> =>
        closedWith(onCleanup, await startTestGateway({ upstreamUrl: new URL(upstream.url), ...options })),
    );
}

/** The embedded sandbox (seeded demo data), shared by the tests of a file. */
export const sandboxTest = test.extend(
  'sandbox',
  { scope: 'file' },
  async ({}, { onCleanup }): Promise<Sandbox> => closedWith(onCleanup, await startSandbox()),
);

/**
 * The gateway as `npm start` runs it without UPSTREAM_URL: in front of the embedded sandbox it
 * starts itself (GraphiQL's header filled in), and that sandbox, shared by the tests of a file.
 */
export function gatewayOverSandbox(options: Omit<StartOptions, 'upstreamUrl'> = {}) {
  return test
    .extend(
      'gateway',
      { scope: 'file' },
      async ({}, { onCleanup }): Promise<TestGateway> => closedWith(onCleanup, await startTestGateway(options)),
    )
    .extend('sandbox', { scope: 'file' }, async ({ gateway }) => gateway.sandbox!);
}
