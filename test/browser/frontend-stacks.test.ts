import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { build } from 'esbuild';
import type { BrowserContext } from 'playwright-core';
import { afterAll, expect } from 'vitest';
import { SANDBOX_AUTH } from '../support/auth.js';
import { describeInBrowser } from '../support/browser.js';
import { closedWith, gatewayOverSandbox } from '../support/fixtures.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

/**
 * Frontend stacks in Debian's headless Chromium, from a page on another origin (another port of
 * 127.0.0.1), as a dev server or a CDN serves an app: Apollo Client with client awareness, urql
 * with its default options, fetches carrying OpenTelemetry's and Sentry's headers. The libraries
 * are bundled for the page by esbuild from the installed packages; nothing comes from a CDN.
 */
const TOKEN = SANDBOX_AUTH.authorization;
const TWO_KEYS = {
  apiKeys: {
    nodes: [
      { id: 'ak_001', name: 'API key 1' },
      { id: 'ak_002', name: 'API key 2' },
    ],
  },
};

const bundle = await build({
  entryPoints: [new URL('./app/stacks.ts', import.meta.url).pathname],
  bundle: true,
  format: 'iife',
  globalName: 'stacks',
  platform: 'browser',
  write: false,
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'error',
});
const APP_SCRIPT = bundle.outputFiles[0]!.text;

/** An app origin: its page loads the bundled stacks; /frame frames the URL in ?src. */
async function startAppOrigin(): Promise<{ origin: string; server: Server }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://app');
    if (url.pathname === '/app.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(APP_SCRIPT);
    if (url.pathname === '/frame') {
      return void res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`<!doctype html><title>framing</title><iframe id="framed" src="${url.searchParams.get('src')}"></iframe>`);
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>app</title><script src="/app.js"></script>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const [listedApp, strangerApp] = await Promise.all([startAppOrigin(), startAppOrigin()]);
afterAll(() => {
  for (const app of [listedApp, strangerApp]) {
    app.server.closeAllConnections();
    app.server.close();
  }
});

const it = gatewayOverSandbox({ corsOrigins: [listedApp.origin], graphiql: true, maxBodyBytes: 4096 }).extend(
  'withCredentials',
  { scope: 'file' },
  async ({ sandbox }, { onCleanup }): Promise<TestGateway> =>
    closedWith(
      onCleanup,
      await startTestGateway({ upstreamUrl: new URL(sandbox.url), corsOrigins: [listedApp.origin], corsAllowCredentials: true }),
    ),
);

type Stacks = typeof import('./app/stacks.js');

/** Runs one of the app's functions in a page of `origin`, and returns what the page could read. */
async function inPage<K extends keyof Stacks>(browser: BrowserContext, origin: string, name: K, ...args: Parameters<Stacks[K]>) {
  const page = await browser.newPage();
  try {
    await page.goto(`${origin}/`);
    return await page.evaluate(
      ([fn, fnArgs]) => (window as unknown as { stacks: Record<string, (...a: unknown[]) => unknown> }).stacks[fn]!(...fnArgs),
      [name, args] as const,
    );
  } finally {
    await page.close();
  }
}

describeInBrowser('frontend stacks on an allowed origin', () => {
  it('Apollo Client with clientAwareness reads its data, and the app is named in the metrics', async ({ browser, gateway }) => {
    expect(await inPage(browser, listedApp.origin, 'apollo', gateway.url, TOKEN)).toEqual({
      data: {
        apiKeys: {
          __typename: 'ApiKeyConnection',
          nodes: [
            { __typename: 'ApiKey', id: 'ak_001', name: 'API key 1' },
            { __typename: 'ApiKey', id: 'ak_002', name: 'API key 2' },
          ],
        },
      },
    });
    const metrics = await (await fetch(gateway.metricsUrl)).text();
    expect(metrics).toContain('gateway_graphql_client_requests_total{client_name="web-app",client_version="1.4.2",outcome="ok"} 1');
    expect(metrics).toContain('gateway_graphql_requests_total{operation_name="Keys",operation_type="query",outcome="ok"} 1');
  });

  it('urql with its default options (GET, Authorization only) reads its data', async ({ browser, gateway }) => {
    expect(await inPage(browser, listedApp.origin, 'urql', gateway.url, TOKEN)).toEqual({
      data: {
        apiKeys: {
          __typename: 'ApiKeyConnection',
          nodes: TWO_KEYS.apiKeys.nodes.map((node) => ({ __typename: 'ApiKey', ...node })),
        },
      },
    });
  });

  it('a fetch with OpenTelemetry and Sentry headers passes the preflight and reads its request id', async ({ browser, gateway }) => {
    expect(await inPage(browser, listedApp.origin, 'tracedFetch', gateway.url, TOKEN)).toEqual({
      status: 200,
      body: { data: TWO_KEYS },
      requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
  });

  it('reads the 413 for a body over MAX_BODY_BYTES and the 400 for a body that is not JSON, with their codes', async ({
    browser,
    gateway,
  }) => {
    const big = JSON.stringify({ query: `{ __typename } # ${'x'.repeat(5000)}` });
    expect(await inPage(browser, listedApp.origin, 'rawPost', gateway.url, TOKEN, big)).toEqual({
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
      requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(await inPage(browser, listedApp.origin, 'rawPost', gateway.url, TOKEN, '{"query": ')).toEqual({
      status: 400,
      code: 'BAD_REQUEST',
      requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
  });

  it("with CORS_ALLOW_CREDENTIALS, a fetch with credentials: 'include' reads its answer", async ({ browser, withCredentials, gateway }) => {
    expect(await inPage(browser, listedApp.origin, 'tracedFetch', withCredentials.url, TOKEN, 'include')).toMatchObject({
      status: 200,
      body: { data: TWO_KEYS },
    });
    // Without the setting the browser refuses it: the answer carries no Allow-Credentials.
    expect(await inPage(browser, listedApp.origin, 'tracedFetch', gateway.url, TOKEN, 'include')).toEqual({
      failed: 'TypeError: Failed to fetch',
    });
  });
});

/**
 * The headers each monitoring agent adds to a fetch to an origin it traces, by their real names,
 * with values of their shape: the agents themselves patch `fetch` the same way.
 */
const MONITORING: Array<[string, Record<string, string>]> = [
  [
    'Datadog RUM',
    {
      'x-datadog-trace-id': '2876544938539577541',
      'x-datadog-parent-id': '1285743025513413214',
      'x-datadog-origin': 'rum',
      'x-datadog-sampling-priority': '1',
      traceparent: '00-000000000000000027eb2b8d4ad02345-11d7a4d1c2f3e45e-01',
      tracestate: 'dd=s:1;o:rum',
    },
  ],
  [
    'New Relic',
    { newrelic: 'eyJ2IjpbMCwxXSwiZCI6eyJ0eSI6IkJyb3dzZXIifX0=', traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
  ],
  ['Elastic APM', { 'elastic-apm-traceparent': '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' }],
  ['AWS X-Ray', { 'x-amzn-trace-id': 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1' }],
  ['Dynatrace', { 'x-dtc': 'sn="v_4_srv_1_sn_5C0E1A5DB4E7"' }],
];

describeInBrowser('monitoring agents on an allowed origin, with no setting beyond CORS_ORIGINS', () => {
  it.for(MONITORING)('%s: the fetch passes its preflight and reads its answer', async ([, headers], { browser, gateway }) => {
    expect(await inPage(browser, listedApp.origin, 'fetchWith', gateway.url, TOKEN, 'same-origin', headers)).toEqual({
      status: 200,
      body: { data: TWO_KEYS },
      requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
  });

  it.for(MONITORING)(
    "%s, with credentials: 'include' and CORS_ALLOW_CREDENTIALS: reads its answer",
    async ([, headers], { browser, withCredentials }) => {
      expect(await inPage(browser, listedApp.origin, 'fetchWith', withCredentials.url, TOKEN, 'include', headers)).toMatchObject({
        status: 200,
        body: { data: TWO_KEYS },
      });
    },
  );

  it.for(MONITORING)('%s, from an origin off the list: stopped at the preflight', async ([, headers], { browser, gateway }) => {
    expect(await inPage(browser, strangerApp.origin, 'fetchWith', gateway.url, TOKEN, 'same-origin', headers)).toEqual({
      failed: 'TypeError: Failed to fetch',
    });
  });
});

describeInBrowser('a page on an origin off the list', () => {
  it('reads nothing, with any stack', async ({ browser, gateway }) => {
    expect(await inPage(browser, strangerApp.origin, 'tracedFetch', gateway.url, TOKEN)).toEqual({ failed: 'TypeError: Failed to fetch' });
    expect(await inPage(browser, strangerApp.origin, 'urql', gateway.url, TOKEN)).toEqual({
      failed: expect.stringContaining('Failed to fetch'),
    });
  });

  it('cannot frame GraphiQL', async ({ browser, gateway }) => {
    const page = await browser.newPage();
    const refused: string[] = [];
    page.on('console', (message) => {
      if (/frame/i.test(message.text())) refused.push(message.text());
    });
    try {
      const framedPage = page.waitForResponse((response) => response.url() === gateway.url);
      await page.goto(`${strangerApp.origin}/frame?src=${encodeURIComponent(gateway.url)}`);
      const framed = await framedPage;
      expect(framed.headers()['x-frame-options']).toBe('DENY');
      await expect.poll(() => refused.length, { timeout: 10_000 }).toBeGreaterThan(0);
      expect(refused[0]).toMatch(/frame-ancestors 'none'|X-Frame-Options/);
      // The frame holds Chromium's error page, not GraphiQL.
      const frame = page.frames().find((candidate) => candidate !== page.mainFrame());
      expect(frame?.url()).not.toBe(gateway.url);
    } finally {
      await page.close();
    }
  });
});
