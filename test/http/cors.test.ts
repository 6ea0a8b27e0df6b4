import { describe, expect } from 'vitest';
import { loadSettings as loadConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/config/settings.js';
import { AUTH } from '../support/auth.js';
import { closedWith, gatewayOverUpstream } from '../support/fixtures.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { graphqlBody, type RawAnswer, rawHttp } from '../support/raw-http.js';
import { envelope } from '../support/recording-upstream.js';
import { apiKeyRecord } from '../support/records.js';

/** CORS over real HTTP: the allow-list from CORS_ORIGINS, preflights and real requests. */
const ALLOWED = 'http://app.example.test:8080';
const OTHER_ALLOWED = 'https://admin.example.test';
const STRANGER = 'http://evil.example.test';
const query = '{ apiKeys(first: 1) { nodes { id } } }';

/** `gateway`: CORS_ORIGINS names two origins; `closed`: no origin; `open`: `*`. All three over one upstream. */
const it = gatewayOverUpstream(() => ({ body: envelope([apiKeyRecord(1)]) }), { corsOrigins: [ALLOWED, OTHER_ALLOWED] })
  .extend(
    'closed',
    { scope: 'file' },
    async ({ upstream }, { onCleanup }): Promise<TestGateway> =>
      closedWith(onCleanup, await startTestGateway({ upstreamUrl: new URL(upstream.url), corsOrigins: [] })),
  )
  .extend(
    'open',
    { scope: 'file' },
    async ({ upstream }, { onCleanup }): Promise<TestGateway> =>
      closedWith(onCleanup, await startTestGateway({ upstreamUrl: new URL(upstream.url), corsOrigins: ['*'] })),
  );

const preflight = (gateway: TestGateway, origin: string) =>
  rawHttp(gateway.url, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,content-type,x-request-id',
    },
  });

const post = (gateway: TestGateway, origin: string) =>
  rawHttp(gateway.url, {
    method: 'POST',
    headers: { origin, 'content-type': 'application/json', ...AUTH },
    body: graphqlBody(query),
  });

const corsHeaders = (answer: RawAnswer) =>
  Object.fromEntries(Object.entries(answer.headers).filter(([name]) => name.startsWith('access-control-')));

describe('a preflight', () => {
  it('from a listed origin is allowed for that origin only, with the headers a browser app sends', async ({ gateway, upstream }) => {
    const answer = await preflight(gateway, ALLOWED);
    expect(answer.status).toBe(204);
    expect(corsHeaders(answer)).toEqual({
      'access-control-allow-origin': ALLOWED,
      'access-control-allow-methods': 'GET, POST',
      'access-control-allow-headers': 'authorization,content-type,x-request-id',
      'access-control-expose-headers': 'x-request-id, Retry-After, Server-Timing, Idempotent-Replayed, deprecation, sunset, link',
      'access-control-max-age': '600',
    });
    // The answer depends on the headers asked for as well as on the origin: a cache must tell both apart.
    expect(answer.headers.vary).toBe('Access-Control-Request-Headers, Origin');
    expect(upstream.requests).toEqual([]);
  });

  it('from a listed origin may send an Idempotency-Key', async ({ gateway }) => {
    const answer = await rawHttp(gateway.url, {
      method: 'OPTIONS',
      headers: {
        origin: ALLOWED,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,idempotency-key',
      },
    });
    expect([answer.status, answer.headers['access-control-allow-headers']]).toEqual([204, 'authorization,content-type,idempotency-key']);
  });

  it('from the second listed origin gets that origin back, not the first', async ({ gateway }) => {
    const answer = await preflight(gateway, OTHER_ALLOWED);
    expect(answer.headers['access-control-allow-origin']).toBe(OTHER_ALLOWED);
  });

  it('from an origin off the list gets no CORS headers at all', async ({ gateway }) => {
    const answer = await preflight(gateway, STRANGER);
    expect(corsHeaders(answer)).toEqual({});
    // Every preflight names both, so that a cache never serves one list's answer to another.
    expect(answer.headers.vary).toBe('Origin, Access-Control-Request-Headers');
  });

  it('without Access-Control-Request-Headers allows no headers, and still varies on them', async ({ gateway }) => {
    const answer = await rawHttp(gateway.url, { method: 'OPTIONS', headers: { origin: ALLOWED, 'access-control-request-method': 'GET' } });
    expect(answer.status).toBe(204);
    expect(answer.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(answer.headers['access-control-allow-headers']).toBeUndefined();
    expect(answer.headers.vary).toBe('Origin, Access-Control-Request-Headers');
  });

  it('gets no CORS headers when no origin is configured', async ({ closed }) => {
    expect(corsHeaders(await preflight(closed, ALLOWED))).toEqual({});
  });

  it('matches a https://*.example.test pattern against subdomains only, on the same scheme and port', async ({ upstream, start }) => {
    const patterned = await start.gateway({ upstreamUrl: new URL(upstream.url), corsOrigins: ['https://*.example.test'] });
    const allowed = async (origin: string) => (await preflight(patterned, origin)).headers['access-control-allow-origin'] ?? null;
    expect(await allowed('https://preview-12.example.test')).toBe('https://preview-12.example.test');
    expect(await allowed('https://a.b.example.test')).toBe('https://a.b.example.test');
    for (const refused of [
      'https://example.test',
      'http://preview.example.test',
      'https://preview.example.test:8443',
      'https://evil-example.test',
      'https://preview.example.test.attacker.test',
      'https://a_b.example.test',
    ]) {
      expect([refused, await allowed(refused)]).toEqual([refused, null]);
    }
  });

  it('from any origin is allowed when the list is *', async ({ open }) => {
    const answer = await preflight(open, STRANGER);
    expect(answer.headers['access-control-allow-origin']).toBe(STRANGER);
    expect(answer.headers.vary).toMatch(/\bOrigin\b/);
  });
});

describe('what frontend stacks send', () => {
  const asked = (gateway: TestGateway, headers: string, origin = ALLOWED) =>
    rawHttp(gateway.url, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': headers },
    });
  const allowedBy = (answer: RawAnswer) =>
    String(answer.headers['access-control-allow-headers'] ?? '')
      .toLowerCase()
      .split(/\s*,\s*/)
      .filter(Boolean);

  /** Each stack by the headers its browser agent adds to a fetch to a traced origin, as a browser lists them in a preflight. */
  const STACKS: Array<[string, string]> = [
    ['Apollo client awareness', 'apollographql-client-name,apollographql-client-version'],
    ['GraphQL client names', 'graphql-client-name,graphql-client-version'],
    ['OpenTelemetry fetch instrumentation', 'traceparent,tracestate'],
    ['Sentry browser tracing', 'baggage,sentry-trace'],
    [
      'Datadog RUM (allowedTracingUrls)',
      'traceparent,tracestate,x-datadog-origin,x-datadog-parent-id,x-datadog-sampling-priority,x-datadog-trace-id',
    ],
    ['New Relic browser agent (distributed tracing)', 'newrelic,traceparent,tracestate'],
    ['Elastic APM RUM (distributedTracingOrigins)', 'elastic-apm-traceparent,traceparent,tracestate'],
    ['AWS X-Ray (CloudWatch RUM)', 'x-amzn-trace-id'],
    ['Dynatrace RUM', 'x-dtc'],
    ['an app of its own', 'x-tenant-id,x-app-build'],
  ];

  it.for(STACKS)('the preflight of a listed origin allows %s', async ([, headers], { gateway }) => {
    const requested = `authorization,content-type,${headers}`;
    const answer = await asked(gateway, requested);
    expect(answer.status).toBe(204);
    expect(answer.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(allowedBy(answer)).toEqual(requested.split(','));
    expect(answer.headers.vary).toBe('Access-Control-Request-Headers, Origin');
  });

  it.for(STACKS)('the preflight of an origin off the list allows nothing for %s', async ([, headers], { gateway }) => {
    const answer = await asked(gateway, `authorization,content-type,${headers}`, STRANGER);
    expect(corsHeaders(answer)).toEqual({});
    expect(answer.headers.vary).toBe('Origin, Access-Control-Request-Headers');
  });

  it('with CORS_ALLOW_CREDENTIALS, the same headers are allowed, each by name: a browser does not take * with credentials', async ({
    upstream,
    start,
  }) => {
    const withCredentials = await start.gateway({ upstreamUrl: new URL(upstream.url), corsOrigins: [ALLOWED], corsAllowCredentials: true });
    const requested = 'authorization,content-type,newrelic,x-amzn-trace-id,x-datadog-trace-id,x-dtc';
    const answer = await asked(withCredentials, requested);
    expect(corsHeaders(answer)).toMatchObject({
      'access-control-allow-origin': ALLOWED,
      'access-control-allow-credentials': 'true',
      'access-control-allow-headers': requested,
    });
    expect(corsHeaders(await asked(withCredentials, requested, STRANGER))).toEqual({});
  });

  it('a listed origin’s real request with those headers is answered, and none of them goes upstream', async ({ gateway, upstream }) => {
    const answer = await rawHttp(gateway.url, {
      method: 'POST',
      headers: {
        origin: ALLOWED,
        'content-type': 'application/json',
        ...AUTH,
        'x-datadog-trace-id': '1234567890',
        'x-datadog-parent-id': '987654321',
        newrelic: 'eyJ2IjpbMCwxXX0=',
        'elastic-apm-traceparent': '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
        'x-amzn-trace-id': 'Root=1-5759e988-bd862e3fe1be46a994272793',
        'x-dtc': 'sn="v_4_srv_1"',
      },
      body: graphqlBody(query),
    });
    expect([answer.status, answer.headers['access-control-allow-origin']]).toEqual([200, ALLOWED]);
    expect(JSON.parse(answer.body.toString())).toEqual({ data: { apiKeys: { nodes: [{ id: 'k1' }] } } });
    expect(Object.keys(upstream.requests[0]!.headers).filter((name) => /datadog|newrelic|elastic|amzn|dtc/.test(name))).toEqual([]);
  });
});

describe('answers written before Yoga', () => {
  it('a 413 carries the same CORS headers for a listed origin, so the page can read it', async ({ upstream, start }) => {
    const small = await start.gateway({ upstreamUrl: new URL(upstream.url), corsOrigins: [ALLOWED], maxBodyBytes: 100 });
    const answer = await rawHttp(small.url, {
      method: 'POST',
      headers: { origin: ALLOWED, 'content-type': 'application/json', ...AUTH },
      body: graphqlBody(`{ __typename } # ${'x'.repeat(200)}`),
    });
    expect(answer.status).toBe(413);
    expect(corsHeaders(answer)).toEqual({
      'access-control-allow-origin': ALLOWED,
      'access-control-allow-methods': 'GET, POST',
      'access-control-expose-headers': 'x-request-id, Retry-After, Server-Timing, Idempotent-Replayed, deprecation, sunset, link',
      'access-control-max-age': '600',
    });
    expect([answer.headers.vary, answer.headers['x-content-type-options']]).toEqual(['Origin', 'nosniff']);
    expect(JSON.parse(answer.body.toString())).toMatchObject({ errors: [{ extensions: { code: 'PAYLOAD_TOO_LARGE' } }] });
    const stranger = await rawHttp(small.url, {
      method: 'POST',
      headers: { origin: STRANGER, 'content-type': 'application/json' },
      body: graphqlBody(`{ __typename } # ${'x'.repeat(200)}`),
    });
    expect([stranger.status, corsHeaders(stranger)]).toEqual([413, {}]);
  });

  it('the 400 for a body that is not JSON carries them too', async ({ gateway }) => {
    const answer = await rawHttp(gateway.url, {
      method: 'POST',
      headers: { origin: ALLOWED, 'content-type': 'application/json', ...AUTH },
      body: '{"query": ',
    });
    expect(answer.status).toBe(400);
    expect(answer.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('CORS_ALLOW_CREDENTIALS', () => {
  it('answers Access-Control-Allow-Credentials: true to listed origins only', async ({ upstream, start }) => {
    const withCredentials = await start.gateway({ upstreamUrl: new URL(upstream.url), corsOrigins: [ALLOWED], corsAllowCredentials: true });
    const [preflightAnswer, real, stranger] = await Promise.all([
      preflight(withCredentials, ALLOWED),
      post(withCredentials, ALLOWED),
      post(withCredentials, STRANGER),
    ]);
    expect(preflightAnswer.headers['access-control-allow-credentials']).toBe('true');
    expect(real.headers['access-control-allow-credentials']).toBe('true');
    expect(real.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(corsHeaders(stranger)).toEqual({});
  });

  it('is refused at start-up together with CORS_ORIGINS=*', () => {
    expect(() => loadConfig({ CORS_ORIGINS: '*', CORS_ALLOW_CREDENTIALS: 'true' })).toThrow(ConfigError);
  });
});

describe('a real POST', () => {
  it('from a listed origin carries that origin, Vary: Origin and no credentials header, and is answered', async ({ gateway }) => {
    const answer = await post(gateway, ALLOWED);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body.toString())).toEqual({ data: { apiKeys: { nodes: [{ id: 'k1' }] } } });
    expect(answer.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(answer.headers['access-control-allow-credentials']).toBeUndefined();
    expect(answer.headers.vary).toBe('Origin');
    expect(answer.headers['cache-control']).toBe('private, no-store');
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
  });

  it('from an origin off the list carries no CORS headers, so a browser will not hand the answer to the page', async ({ gateway }) => {
    const answer = await post(gateway, STRANGER);
    expect(corsHeaders(answer)).toEqual({});
  });
});

describe('CORS_ORIGINS', () => {
  it('defaults to any origin in development and to none in production', () => {
    expect(loadConfig({}).corsOrigins).toEqual(['*']);
    expect(loadConfig({ NODE_ENV: 'production', UPSTREAM_URL: 'https://api.example.test/v2' }).corsOrigins).toEqual([]);
  });

  it('reads a comma-separated list of exact origins, or *', () => {
    expect(loadConfig({ CORS_ORIGINS: ` ${ALLOWED} ,${OTHER_ALLOWED}` }).corsOrigins).toEqual([ALLOWED, OTHER_ALLOWED]);
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toEqual(['*']);
    expect(loadConfig({ CORS_ORIGINS: 'https://*.example.test' }).corsOrigins).toEqual(['https://*.example.test']);
  });

  it.for([
    'app.example.test',
    'https://app.example.test/',
    'https://app.example.test/path',
    'ftp://app.example.test',
    'https://*.test',
    'https://*.127.0.0.1',
    'https://app.*.example.test',
    '*.example.test',
  ])('refuses %s, which is not an origin', (value) => {
    expect(() => loadConfig({ CORS_ORIGINS: value })).toThrow(ConfigError);
    expect(() => loadConfig({ CORS_ORIGINS: value })).toThrow(/CORS_ORIGINS must be \* or a comma-separated list of origins/);
  });
});
