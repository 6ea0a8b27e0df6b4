import { gunzipSync } from 'node:zlib';
import { expect, vi } from 'vitest';
import { loadSettings } from '../../src/config/load.js';
import type { StartOptions } from '../../src/server/start.js';
import { AUTH } from '../support/auth.js';
import type { Start } from '../support/fixtures.js';
import { test } from '../support/fixtures.js';
import type { TestGateway } from '../support/gateway.js';
import { captureLogs } from '../support/logs.js';
import { openConnection, type RawAnswer, rawHttp } from '../support/raw-http.js';
import type { Script } from '../support/recording-upstream.js';
import { apiKeyPage, apiKeys } from '../support/records.js';
import { describeInEachStore, type StartInStore } from '../support/state-modes.js';

/**
 * A read cache hit is answered by the HTTP front, before Yoga (src/cached-answers.ts), and must be
 * the very answer Yoga gives it: status, header lines, body bytes and log line. A request sent with
 * a chunked body is never answered there, so the same hit through Yoga is one `chunked: true` away.
 */
const QUERY = 'query Keys($first: Int!) { apiKeys(first: $first) { nodes { id name permissions } } }';
const BODY = JSON.stringify({ query: QUERY, operationName: 'Keys', variables: { first: 3 } });

/** An upstream page of three keys, with headers that RETURN_HEADERS gives back and a hit replays. */
const keysWithHeaders: Script = () => ({
  body: apiKeyPage(apiKeys(3)),
  headers: { 'cache-control': 'max-age=30', 'x-api-version': '2.4', 'ratelimit-remaining': '99' },
});

const SETTINGS = loadSettings({ FORWARD_HEADERS: 'accept-language', RETURN_HEADERS: 'cache-control,x-api-version,ratelimit-remaining' });

/** Header lines that differ between any two answers: when, and the request's own id. */
const MOMENTARY = new Set(['date', 'x-request-id']);

/** An answer as compared: status, every header line but the momentary ones (sorted: their order is not the answer's), the body unzipped. */
const comparable = (answer: RawAnswer) => ({
  status: answer.status,
  lines: answer.lines.filter(([name]) => !MOMENTARY.has(name)).toSorted(([a], [b]) => a.localeCompare(b)),
  body: (answer.headers['content-encoding'] === 'gzip' ? gunzipSync(answer.body) : answer.body).toString(),
});

/** RETURN_HEADERS of the moment of a call, which a hit does not replay. */
const notReplayed = (answer: RawAnswer): RawAnswer => ({
  ...answer,
  lines: answer.lines.filter(([name]) => name !== 'x-api-version' && name !== 'ratelimit-remaining'),
});

/** A log line as compared: all but when it was written and what differs per request. */
const comparableLine = ({ time: _time, requestId: _id, durationMs: _ms, ...line }: Record<string, unknown>) => line;

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

/** Counts the requests the front answered itself, by wrapping its `answer`. */
function countFrontAnswers(gateway: TestGateway): { answered: number } {
  const front = gateway.gateway.cachedAnswers;
  if (!front) throw new Error('no cached answers: the front is off');
  const counted = { answered: 0 };
  const answer = front.answer;
  front.answer = async (...args) => {
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
    forwardHeaders: SETTINGS.forwardHeaders,
    returnHeaders: SETTINGS.returnHeaders,
    corsOrigins: ['https://app.example'],
    compressionMinBytes: 100,
    logger: logs.logger,
    ...options,
  });
  return { ...started, logs, front: countFrontAnswers(started.gateway) };
}

/** What browsers, Apollo Client and curl send, with and without gzip, an allowed origin, a request id and client names. */
const CALLERS: Array<Record<string, string>> = [
  { accept: 'application/json' },
  {
    accept: 'application/graphql-response+json,application/json;q=0.9',
    'accept-encoding': 'gzip, deflate, br',
    origin: 'https://app.example',
  },
  { accept: '*/*', 'x-request-id': 'req-42', 'apollographql-client-name': 'web', 'apollographql-client-version': '1.2.3' },
  { accept: 'application/*', origin: 'https://elsewhere.example', 'accept-language': 'de-CH' },
];

describeInEachStore('read cache hits before Yoga', (startInStore) => {
  test('are the hits Yoga answers, and the misses’ answers, header line by header line and in the log', async ({ start }) => {
    const { upstream, gateway, logs, front } = await startCaching(startInStore, start);
    for (const [index, caller] of CALLERS.entries()) {
      const headers = {
        ...AUTH,
        'content-type': 'application/json',
        ...caller,
        'accept-language': caller['accept-language'] ?? `x-${index}`,
      };
      const send = (chunked: boolean) => rawHttp(gateway.url, { method: 'POST', headers, body: chunked ? [BODY] : BODY });
      const miss = await send(false);
      const missMetrics = await counters(gateway);
      const throughYoga = await send(true);
      const yogaMetrics = await counters(gateway);
      const beforeYoga = await send(false);
      expect(upstream.requests).toHaveLength(index + 1);
      expect(front.answered).toBe(index + 1);
      expect(comparable(beforeYoga)).toEqual(comparable(throughYoga));
      // A hit gives back the headers that describe the answer (Cache-Control), never those of the moment of its call.
      expect(comparable(beforeYoga)).toEqual(comparable(notReplayed(miss)));
      expect(beforeYoga.headers['x-request-id']).toEqual(caller['x-request-id'] ?? expect.stringMatching(/^[0-9a-f-]{36}$/));
      const [missLine, yogaLine, frontLine] = logs.lines('graphql request').slice(-3).map(comparableLine);
      expect(frontLine).toEqual(yogaLine);
      // A hit made no call; the rest of its line is the miss's.
      expect(frontLine).toEqual({ ...missLine, cache: 'hit', upstreamCalls: 0 });
      expect(missLine).toMatchObject({ cache: 'miss', upstreamCalls: 1, status: 200, operationName: 'Keys', outcome: 'ok' });
      expect(metricsOf(await counters(gateway), yogaMetrics)).toEqual(metricsOf(yogaMetrics, missMetrics));
      expect(metricsOf(yogaMetrics, missMetrics)).toMatchObject({ 'gateway_response_cache_total{outcome="hit"}': 1 });
    }
    expect(
      JSON.parse(
        comparable(
          await rawHttp(gateway.url, {
            method: 'POST',
            headers: { ...AUTH, 'content-type': 'application/json', accept: 'application/json', 'accept-language': 'x-0' },
            body: BODY,
          }),
        ).body,
      ),
    ).toEqual({
      data: { apiKeys: { nodes: apiKeys(3).map(({ id, name, permissions }) => ({ id, name, permissions: permissions.map(String) })) } },
    });
  });

  test('count once each against the rate limit, and a refused one is Yoga’s 429', async ({ start }) => {
    const { gateway, logs, front } = await startCaching(startInStore, start, { rateLimitOperations: 3, rateLimitWindowMs: 600_000 });
    const headers = { ...AUTH, 'content-type': 'application/json', accept: 'application/json' };
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await rawHttp(gateway.url, { method: 'POST', headers, body: BODY })).status);
    expect(statuses).toEqual([200, 200, 200]);
    expect(front.answered).toBe(2);
    const refusedBefore = await rawHttp(gateway.url, { method: 'POST', headers, body: BODY });
    const refusedThrough = await rawHttp(gateway.url, { method: 'POST', headers, body: [BODY] });
    expect(front.answered).toBe(2);
    const withoutReset = (answer: RawAnswer) => ({
      ...comparable(answer),
      lines: comparable(answer).lines.filter(([name]) => !['retry-after', 'ratelimit-reset'].includes(name)),
      body: comparable(answer)
        .body.replace(/\d+ s\./, 'N s.')
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
    const [before, through, missBefore, missThrough] = logs.lines('graphql request').slice(-4).map(comparableLine);
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

  test('leave a body cut short to Yoga, which answers and logs it as before: 400', async ({ start }) => {
    const { gateway, logs, front } = await startCaching(startInStore, start);
    const { socket, closed } = await openConnection(gateway.url);
    socket.write(
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAuthorization: ${AUTH.authorization}\r\n` +
        `Content-Length: ${BODY.length}\r\n\r\n${BODY.slice(0, 20)}`,
    );
    socket.destroy();
    await closed;
    await vi.waitFor(() => expect(logs.lines('graphql request').at(-1)).toMatchObject({ status: 400, errorCodes: ['BAD_REQUEST'] }));
    expect(front.answered).toBe(0);
  });

  test('leave to Yoga what is not plainly a hit: a fresh answer asked for, a batch, an unknown parameter', async ({ start }) => {
    const { upstream, gateway, front } = await startCaching(startInStore, start);
    const headers = { ...AUTH, 'content-type': 'application/json', accept: 'application/json' };
    await rawHttp(gateway.url, { method: 'POST', headers, body: BODY });
    const fresh = await rawHttp(gateway.url, { method: 'POST', headers: { ...headers, 'cache-control': 'no-cache' }, body: BODY });
    const batch = await rawHttp(gateway.url, { method: 'POST', headers, body: `[${BODY}]` });
    const unknown = await rawHttp(gateway.url, { method: 'POST', headers, body: JSON.stringify({ ...JSON.parse(BODY), extra: 1 }) });
    expect([fresh.status, batch.status, unknown.status]).toEqual([200, 200, 400]);
    expect(front.answered).toBe(0);
    // The fresh answer went upstream; the batch's operation was a hit, through Yoga.
    expect(upstream.requests).toHaveLength(2);
    expect(JSON.parse(unknown.body.toString()).errors[0].message).toBe('Unexpected parameter "extra" in the request body.');
  });
});
