import { gunzipSync } from 'node:zlib';
import { expect, vi } from 'vitest';
import { loadSettings } from '../../src/config/load.js';
import type { StartOptions } from '../../src/server/start.js';
import { AUTH, bearer } from '../support/auth.js';
import type { Start } from '../support/fixtures.js';
import { test } from '../support/fixtures.js';
import type { TestGateway } from '../support/gateway.js';
import { captureLogs } from '../support/logs.js';
import { openSocket, type RawAnswer, rawHttp } from '../support/raw-http.js';
import type { Script } from '../support/recording-upstream.js';
import { apiKeyPage, apiKeys } from '../support/records.js';
import { describeInEachStore, type StartInStore } from '../support/state-modes.js';

/**
 * A read cache hit answered by the hit path, before Yoga (src/hit-path/), must be the very answer
 * Yoga gives it: status, every header line, body bytes, log line and metrics. A request sent with a
 * chunked body is never read by the hit path, so the same hit through Yoga is one `chunked: true`
 * away. Compared for every setting that changes an answer (CORS on and off, FORWARD_HEADERS,
 * RETURN_HEADERS with the REST API's deprecation notices, the gzip threshold), each with callers
 * that vary everything a caller sends that changes an answer, in each store.
 */
const QUERY = 'query Keys($first: Int!) { apiKeys(first: $first) { nodes { id name permissions } } }';
const BODY = JSON.stringify({ query: QUERY, operationName: 'Keys', variables: { first: 3 } });

/** An upstream page of three keys, with headers RETURN_HEADERS may give back, a hit replaying those that describe the answer. */
const keysWithHeaders: Script = () => ({
  body: apiKeyPage(apiKeys(3)),
  headers: {
    'cache-control': 'max-age=30',
    'x-api-version': '2.4',
    'ratelimit-remaining': '99',
    deprecation: '@1767225600',
    sunset: 'Wed, 31 Mar 2027 00:00:00 GMT',
    link: '<https://docs.example.com/v2-keys>; rel="deprecation"',
  },
});

const RETURNED = loadSettings({ RETURN_HEADERS: 'cache-control,x-api-version,ratelimit-remaining,deprecation,sunset,link' }).returnHeaders;
const FORWARDED = loadSettings({ FORWARD_HEADERS: 'accept-language,x-tenant=tenant' }).forwardHeaders;

/** Every setting that changes an answer, each value with each of the others. */
const GATEWAYS: Array<{ name: string; options: StartOptions }> = [false, true].flatMap((cors) =>
  [false, true].flatMap((forward) =>
    [false, true].flatMap((returned) =>
      [100, 1024].map((compressionMinBytes) => ({
        name: `CORS ${cors ? 'on' : 'off'}, ${forward ? '' : 'no '}FORWARD_HEADERS, ${returned ? '' : 'no '}RETURN_HEADERS, gzip from ${compressionMinBytes} bytes`,
        options: {
          corsOrigins: cors ? ['https://app.example', 'https://*.example.org'] : [],
          forwardHeaders: forward ? FORWARDED : [],
          returnHeaders: returned ? RETURNED : [],
          compressionMinBytes,
        },
      })),
    ),
  ),
);

/** What a caller may send that changes an answer, each dimension's values in turn; the callers take them round-robin. */
const DIMENSIONS: Array<Array<Record<string, string>>> = [
  [
    { accept: 'application/json' },
    { accept: 'application/graphql-response+json,application/json;q=0.9' },
    { accept: '*/*' },
    { accept: 'application/*' },
    { accept: 'application/graphql-response+json' },
    {},
  ],
  [
    { 'accept-encoding': 'gzip, deflate, br' },
    {},
    { 'accept-encoding': 'gzip;q=0' },
    { 'accept-encoding': 'br' },
    { 'accept-encoding': 'x-gzip' },
  ],
  [{ origin: 'https://app.example' }, { origin: 'https://elsewhere.example' }, {}, { origin: 'https://a.example.org' }],
  [{ 'x-request-id': 'req-42' }, {}, { 'x-request-id': 'not an id' }],
  [
    { 'apollographql-client-name': 'web', 'apollographql-client-version': '1.2.3' },
    {},
    { 'graphql-client-name': 'ios', 'graphql-client-version': '7' },
    { 'apollographql-client-name': 'has spaces' },
  ],
  [{ 'accept-language': 'de-CH', 'x-tenant': 't1' }, {}, { 'accept-language': 'fr' }],
];

/** As many callers as make every value of every dimension meet several of the others. */
const CALLERS = Array.from(
  { length: 12 },
  (_, index) => Object.assign({}, ...DIMENSIONS.map((values) => values[index % values.length]!)) as Record<string, string>,
);

/** Header lines that differ between any two answers: when; the request id is compared where the caller chose it. */
const MOMENTARY = new Set(['date', 'x-request-id']);

/** An answer as compared: status, every header line but the momentary ones (sorted: their order is not the answer's), the body's bytes. */
const comparable = (answer: RawAnswer) => ({
  status: answer.status,
  lines: answer.lines.filter(([name]) => !MOMENTARY.has(name)).toSorted(([a], [b]) => a.localeCompare(b)),
  body: answer.body.toString('base64'),
});

const textOf = (answer: RawAnswer) => (answer.headers['content-encoding'] === 'gzip' ? gunzipSync(answer.body) : answer.body).toString();

/** RETURN_HEADERS of the moment of a call, which a hit does not replay. */
const notReplayed = (answer: RawAnswer): RawAnswer => ({
  ...answer,
  lines: answer.lines.filter(([name]) => name !== 'x-api-version' && name !== 'ratelimit-remaining'),
});

/** A log line as compared: all but when it was written and how long it took. */
const comparableLine = ({ time: _time, durationMs: _ms, ...line }: Record<string, unknown>) => line;

/** The gateway's own series of /metrics but the times (a histogram's buckets and sum) and the connections, which close when they will. */
async function counters(gateway: TestGateway): Promise<Map<string, number>> {
  const lines = (await (await fetch(gateway.metricsUrl)).text()).split('\n');
  const kept = lines.filter((line) => line.startsWith('gateway_') && !/^gateway_\w*(_bucket|_sum|connection\w*)[{ ]/.test(line));
  return new Map(kept.map((line) => [line.slice(0, line.lastIndexOf(' ')), Number(line.slice(line.lastIndexOf(' ') + 1))]));
}

/** What one request added to the series: each that changed, by how much. */
const metricsOf = (after: Map<string, number>, before: Map<string, number>) =>
  Object.fromEntries(
    [...after].flatMap(([series, value]) => (value !== (before.get(series) ?? 0) ? [[series, value - (before.get(series) ?? 0)]] : [])),
  );

/** Counts the requests the hit path answered itself, by wrapping its `answer`. */
function countHitPathAnswers(gateway: TestGateway): { answered: number } {
  const hitPath = gateway.gateway.hitPath;
  if (!hitPath) throw new Error('no hit path: it is off');
  const counted = { answered: 0 };
  const answer = hitPath.answer;
  hitPath.answer = async (...args: Parameters<typeof answer>) => {
    const answered = await answer(...args);
    if (answered) counted.answered++;
    return answered;
  };
  return counted;
}

async function startCaching(startInStore: StartInStore, servers: Start, options: StartOptions = {}) {
  const logs = captureLogs('info');
  const started = await startInStore(servers, keysWithHeaders, {
    cacheTtlMs: 60_000,
    forwardHeaders: FORWARDED,
    returnHeaders: RETURNED,
    corsOrigins: ['https://app.example'],
    compressionMinBytes: 100,
    logger: logs.logger,
    ...options,
  });
  return { ...started, logs, hitPath: countHitPathAnswers(started.gateway) };
}

describeInEachStore('read cache hits answered by the hit path', (startInStore) => {
  test.for(GATEWAYS)(
    'are the hits Yoga answers, header line by header line, in the log and the metrics, with $name',
    async ({ options }, { start }) => {
      const { upstream, gateway, logs, hitPath } = await startCaching(startInStore, start, options);
      for (const [index, caller] of CALLERS.entries()) {
        // A caller of its own each, so that its first request is a miss whatever the settings key on.
        const headers = { ...bearer(`caller-${index}`), 'content-type': 'application/json', ...caller };
        const send = (chunked: boolean) => rawHttp(gateway.url, { method: 'POST', headers, body: chunked ? [BODY] : BODY });
        const miss = await send(false);
        const missMetrics = await counters(gateway);
        const throughYoga = await send(true);
        const yogaMetrics = await counters(gateway);
        const hit = await send(false);
        const what = { caller, options };
        expect([what, upstream.requests.length, hitPath.answered]).toEqual([what, index + 1, index + 1]);
        expect([what, comparable(hit)]).toEqual([what, comparable(throughYoga)]);
        // A hit gives back the headers that describe the answer (Cache-Control, the notices), never those of the moment of its call.
        expect([what, { ...comparable(hit), body: textOf(hit) }]).toEqual([what, { ...comparable(notReplayed(miss)), body: textOf(miss) }]);
        const id = caller['x-request-id'] === 'req-42' ? 'req-42' : expect.stringMatching(/^[0-9a-f-]{36}$/);
        expect([hit.headers['x-request-id'], throughYoga.headers['x-request-id']]).toEqual([id, id]);
        const [missLine, yogaLine, hitLine] = logs.lines('graphql request').slice(-3).map(comparableLine);
        expect([what, { ...hitLine, requestId: 0 }]).toEqual([what, { ...yogaLine, requestId: 0 }]);
        // A hit made no call; the rest of its line is the miss's.
        expect([what, { ...hitLine, requestId: 0 }]).toEqual([
          what,
          { ...missLine, requestId: 0, cache: 'hit', upstreamCalls: 0, estimatedCalls: null },
        ]);
        expect(missLine).toMatchObject({ cache: 'miss', upstreamCalls: 1, status: 200, operationName: 'Keys', outcome: 'ok' });
        expect([what, metricsOf(await counters(gateway), yogaMetrics)]).toEqual([what, metricsOf(yogaMetrics, missMetrics)]);
        expect(metricsOf(yogaMetrics, missMetrics)).toMatchObject({ 'gateway_response_cache_total{outcome="hit"}': 1 });
      }
      expect(
        JSON.parse(
          textOf(
            await rawHttp(gateway.url, {
              method: 'POST',
              headers: { ...bearer('caller-1'), 'content-type': 'application/json' },
              body: BODY,
            }),
          ),
        ),
      ).toEqual({
        data: { apiKeys: { nodes: apiKeys(3).map(({ id, name, permissions }) => ({ id, name, permissions: permissions.map(String) })) } },
      });
    },
  );

  test('count once each against the rate limit, and a refused one is Yoga’s 429', async ({ start }) => {
    const { gateway, logs, hitPath } = await startCaching(startInStore, start, {
      rateLimit: 3,
      rateLimitUnit: 'operations',
      rateLimitWindowMs: 600_000,
    });
    const headers = { ...AUTH, 'content-type': 'application/json', accept: 'application/json' };
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await rawHttp(gateway.url, { method: 'POST', headers, body: BODY })).status);
    expect(statuses).toEqual([200, 200, 200]);
    expect(hitPath.answered).toBe(2);
    const refusedBefore = await rawHttp(gateway.url, { method: 'POST', headers, body: BODY });
    const refusedThrough = await rawHttp(gateway.url, { method: 'POST', headers, body: [BODY] });
    expect(hitPath.answered).toBe(2);
    const withoutReset = (answer: RawAnswer) => ({
      ...comparable(answer),
      lines: comparable(answer).lines.filter(([name]) => !['retry-after', 'ratelimit-reset', 'content-length'].includes(name)),
      body: textOf(answer)
        .replace(/\d+ s\./, 'N s.')
        .replace(/"retryAfter":\d+/, '"retryAfter":N'),
    });
    expect(refusedBefore.status).toBe(429);
    expect(withoutReset(refusedBefore)).toEqual(withoutReset(refusedThrough));
    // A miss refused, with a header too long to forward: the rate limit refuses before the cache is read and
    // the headers to forward are, whichever path looked at it first.
    const otherBody = JSON.stringify({ ...JSON.parse(BODY), variables: { first: 2 } });
    const tooLong = { ...headers, 'accept-language': 'x'.repeat(1100) };
    const first = await counters(gateway);
    await rawHttp(gateway.url, { method: 'POST', headers: tooLong, body: otherBody });
    const between = await counters(gateway);
    await rawHttp(gateway.url, { method: 'POST', headers: tooLong, body: [otherBody] });
    expect(metricsOf(between, first)).toEqual(metricsOf(await counters(gateway), between));
    expect(metricsOf(between, first)).toMatchObject({ 'gateway_graphql_errors_total{code="RATE_LIMITED"}': 1 });
    const [before, through, missBefore, missThrough] = logs
      .lines('graphql request')
      .slice(-4)
      .map(({ requestId: _id, ...line }) => comparableLine(line));
    expect(before).toEqual(through);
    expect(before).toMatchObject({ status: 429, errorCodes: ['RATE_LIMITED'] });
    expect(missBefore).toEqual(missThrough);
    expect(missBefore).toEqual(before);
  });

  test('key on a forwarded header whatever the case its name was given in', async ({ start }) => {
    const { upstream, gateway } = await startCaching(startInStore, start, {
      forwardHeaders: [{ name: 'X-Tenant', upstreamName: 'x-tenant' }],
    });
    const send = (tenant: string) =>
      rawHttp(gateway.url, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json', 'x-tenant': tenant }, body: BODY });
    await send('a');
    await send('b');
    await send('b');
    expect(upstream.requests.map((request) => request.headers['x-tenant'])).toEqual(['a', 'b']);
  });

  test('never give one caller’s answer to another', async ({ start }) => {
    const { upstream, gateway, hitPath } = await startCaching(startInStore, start);
    const send = (token: string) =>
      rawHttp(gateway.url, { method: 'POST', headers: { ...bearer(token), 'content-type': 'application/json' }, body: BODY });
    await send('tenant-a');
    await send('tenant-b');
    await send('tenant-a');
    await send('tenant-b');
    expect(upstream.requests.map((request) => request.headers.authorization)).toEqual(['Bearer tenant-a', 'Bearer tenant-b']);
    expect(hitPath.answered).toBe(2);
  });

  test('leave a body cut short to Yoga, which answers and logs it as before: 400', async ({ start }) => {
    const { gateway, logs, hitPath } = await startCaching(startInStore, start);
    const { socket, closed } = await openSocket(gateway.url);
    socket.write(
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAuthorization: ${AUTH.authorization}\r\n` +
        `Content-Length: ${BODY.length}\r\n\r\n${BODY.slice(0, 20)}`,
    );
    socket.destroy();
    await closed;
    await vi.waitFor(() => expect(logs.lines('graphql request').at(-1)).toMatchObject({ status: 400, errorCodes: ['BAD_REQUEST'] }));
    expect(hitPath.answered).toBe(0);
  });

  test('leave to Yoga what is not plainly a hit: a fresh answer asked for, a batch, an unknown parameter', async ({ start }) => {
    const { upstream, gateway, hitPath } = await startCaching(startInStore, start);
    const headers = { ...AUTH, 'content-type': 'application/json', accept: 'application/json' };
    await rawHttp(gateway.url, { method: 'POST', headers, body: BODY });
    const fresh = await rawHttp(gateway.url, { method: 'POST', headers: { ...headers, 'cache-control': 'no-cache' }, body: BODY });
    const batch = await rawHttp(gateway.url, { method: 'POST', headers, body: `[${BODY}]` });
    const unknown = await rawHttp(gateway.url, { method: 'POST', headers, body: JSON.stringify({ ...JSON.parse(BODY), extra: 1 }) });
    expect([fresh.status, batch.status, unknown.status]).toEqual([200, 200, 400]);
    expect(hitPath.answered).toBe(0);
    // The fresh answer went upstream; the batch's operation was a hit, through Yoga.
    expect(upstream.requests).toHaveLength(2);
    expect(JSON.parse(unknown.body.toString()).errors[0].message).toBe('Unexpected parameter "extra" in the request body.');
  });
});
