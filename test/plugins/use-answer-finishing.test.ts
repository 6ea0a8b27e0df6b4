import { gunzipSync } from 'node:zlib';
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { createSchema, type Plugin } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import type { AnswerSettings } from '../../src/answer/finish.js';
import { SECURITY_HEADERS } from '../../src/answer/security-headers.js';
import { requestIdOf } from '../../src/http/request-id.js';
import { type IdempotencyOutcome, recordOf } from '../../src/operation-record.js';
import { partsOf } from '../support/incremental.js';
import { answering, ENDPOINT, finishing, post, postForParts, send, sendForBytes, UUID, yogaWith } from '../support/yoga.js';

/** Yoga with the finishing last, as the gateway has it: with an allowed origin, Yoga answers preflights and sets no CORS header itself. */
function yogaFinishing(before: Plugin[] = [], settings: Partial<AnswerSettings> = {}) {
  const cors = (settings.corsOrigins?.length ?? 0) > 0 ? () => false as const : false;
  return yogaWith([...before, finishing(settings)], { cors });
}

/** What every answer carries that a test of something else takes as given. */
const { 'x-request-id': _id, ...GIVEN } = { 'x-request-id': '', 'cache-control': 'private, no-store', ...SECURITY_HEADERS };

const PAGE_POLICY = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; " +
    "connect-src 'self'; worker-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

describe('useAnswerFinishing: Idempotent-Replayed', () => {
  /** Notes on the operation's record what an Idempotency-Key did, as useIdempotency does. */
  const noting = (outcome: IdempotencyOutcome): Plugin => ({
    onExecute: ({ args }) => {
      recordOf(args.contextValue).idempotency = outcome;
    },
  });

  it('says true on an answer an Idempotency-Key replays, and is on no other', async () => {
    expect((await post(yogaFinishing([noting('replayed')]), { query: '{ hello }' })).headers['idempotent-replayed']).toBe('true');
    for (const outcome of ['stored', 'conflict', 'unknown'] as const)
      expect((await post(yogaFinishing([noting(outcome)]), { query: '{ hello }' })).headers['idempotent-replayed']).toBeUndefined();
    expect((await post(yogaFinishing(), { query: '{ hello }' })).headers['idempotent-replayed']).toBeUndefined();
  });
});

describe('useAnswerFinishing: the request id', () => {
  /** The id the operation's context sees, which the log line and the upstream calls use. */
  const seen: string[] = [];
  const recordContextId: Plugin = { onExecute: ({ args }) => void seen.push(requestIdOf(args.contextValue.request)) };
  const yoga = yogaFinishing([recordContextId]);

  it("returns the caller's id, the same the operation's context sees", async () => {
    seen.length = 0;
    const answer = await post(yoga, { query: '{ hello }' }, { 'x-request-id': 'web-1.a:b_c' });
    expect(answer.headers['x-request-id']).toBe('web-1.a:b_c');
    expect(seen).toEqual(['web-1.a:b_c']);
  });

  it('makes a fresh UUID per request when the caller sent none, the same the context sees', async () => {
    seen.length = 0;
    const first = await post(yoga, { query: '{ hello }' });
    const second = await post(yoga, { query: '{ hello }' });
    expect(first.headers['x-request-id']).toMatch(UUID);
    expect(second.headers['x-request-id']).toMatch(UUID);
    expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(seen).toEqual([first.headers['x-request-id'], second.headers['x-request-id']]);
  });

  it('takes at most 128 characters of letters, digits and . : _ -, and makes a UUID for anything else', async () => {
    const longest = 'a'.repeat(128);
    expect((await post(yoga, { query: '{ hello }' }, { 'x-request-id': longest })).headers['x-request-id']).toBe(longest);
    for (const unsafe of ['a'.repeat(129), 'two words', 'a/b', 'id"quoted', '']) {
      expect((await post(yoga, { query: '{ hello }' }, { 'x-request-id': unsafe })).headers['x-request-id']).toMatch(UUID);
    }
  });

  it('is on answers that never reached GraphQL', async () => {
    const withCors = yogaFinishing([], { corsOrigins: ['http://app.example'] });
    const missing = await send(yoga, 'http://yoga/nothing', { headers: { 'x-request-id': 'lost-1' } });
    const preflight = await send(withCors, ENDPOINT, {
      method: 'OPTIONS',
      headers: { origin: 'http://app.example', 'access-control-request-method': 'POST', 'x-request-id': 'preflight-1' },
    });
    expect([missing.status, missing.headers['x-request-id']]).toEqual([404, 'lost-1']);
    expect([preflight.status, preflight.headers['x-request-id']]).toEqual([204, 'preflight-1']);
  });
});

describe('useAnswerFinishing: Cache-Control', () => {
  const yoga = yogaFinishing();

  it('forbids shared caches to keep a GraphQL answer, data and errors alike', async () => {
    const ok = await post(yoga, { query: '{ hello }' });
    const refused = await post(yoga, { query: '{ nothing }' });
    expect([ok.status, ok.headers['cache-control']]).toEqual([200, 'private, no-store']);
    expect([refused.status, refused.headers['cache-control']]).toEqual([400, 'private, no-store']);
  });

  it('covers answers outside GraphQL too', async () => {
    const missing = await send(yoga, 'http://yoga/nothing');
    expect([missing.status, missing.headers['cache-control']]).toEqual([404, 'private, no-store']);
  });

  it('leaves preflight answers alone: the browser caches them by Access-Control-Max-Age', async () => {
    const preflight = await send(yogaFinishing([], { corsOrigins: ['http://app.example'] }), ENDPOINT, {
      method: 'OPTIONS',
      headers: { origin: 'http://app.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers).not.toHaveProperty('cache-control');
    expect(preflight.headers['access-control-max-age']).toBe('600');
  });

  it("keeps an answer's own policy", async () => {
    const own = yogaFinishing([answering('body', { 'cache-control': 'public, max-age=31536000, immutable' })]);
    expect((await send(own, ENDPOINT)).headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it("replaces the no-cache Yoga gives an event stream, which a shared cache may store, also when Yoga's headers were an object", async () => {
    const stream = yogaFinishing([answering(':\n\n', { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' })]);
    const headers = [...(await stream.fetch(ENDPOINT)).headers];
    expect(headers.filter(([name]) => name.toLowerCase() === 'cache-control')).toEqual([['cache-control', 'private, no-store']]);
  });
});

describe('useAnswerFinishing: security headers', () => {
  it('is nosniff alone for the answers that are no page', () => {
    expect(SECURITY_HEADERS).toEqual({ 'x-content-type-options': 'nosniff' });
  });

  it('puts nosniff, and nothing of the page policy, on a JSON answer', async () => {
    const answer = await post(yogaFinishing(), { query: '{ hello }' }, { 'x-request-id': 'r1' });
    expect(answer.headers).toEqual({
      'content-type': 'application/graphql-response+json; charset=utf-8',
      'content-length': '32',
      'x-request-id': 'r1',
      ...GIVEN,
    });
  });

  it('puts nosniff on an answer without a body or a type', async () => {
    const missing = await send(yogaFinishing(), 'http://yoga/nothing', { headers: { 'x-request-id': 'r2' } });
    expect([missing.status, missing.headers]).toEqual([404, { 'x-request-id': 'r2', ...GIVEN }]);
  });

  it('gives an HTML page the strict policy and a charset when it declared none', async () => {
    const page = await send(yogaFinishing([answering('<p>page</p>', { 'content-type': 'text/html' })]), ENDPOINT, {
      headers: { 'x-request-id': 'r3' },
    });
    expect(page.headers).toEqual({
      'content-type': 'text/html; charset=utf-8',
      'content-length': '11',
      'x-request-id': 'r3',
      ...GIVEN,
      ...PAGE_POLICY,
    });
  });

  it("keeps an HTML page's own charset", async () => {
    const page = await send(yogaFinishing([answering('<p>page</p>', { 'content-type': 'text/html; Charset=ISO-8859-1' })]), ENDPOINT);
    expect(page.headers['content-type']).toBe('text/html; Charset=ISO-8859-1');
    expect(page.headers['x-frame-options']).toBe('DENY');
  });

  it("replaces the type of Yoga's GraphiQL page, which it spells Content-Type, rather than adding a second one", async () => {
    const response = await yogaFinishing().fetch(ENDPOINT, { headers: { accept: 'text/html' } });
    expect([...response.headers].filter(([name]) => name.toLowerCase() === 'content-type')).toEqual([
      ['content-type', 'text/html; charset=utf-8'],
    ]);
  });

  it("gives Yoga's GraphiQL page the policy", async () => {
    const page = await send(yogaFinishing(), ENDPOINT, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers).toMatchObject({ 'content-type': 'text/html; charset=utf-8', 'x-content-type-options': 'nosniff', ...PAGE_POLICY });
  });
});

describe('useAnswerFinishing: CORS and Vary', () => {
  const ORIGIN = 'http://app.example';
  const withCors = yogaFinishing([], { corsOrigins: [ORIGIN] });

  /** The Vary header of an answer that carried `vary` (or none) before the finishing, with CORS on. */
  async function varyAfter(vary: string | undefined) {
    const yoga = yogaFinishing([answering('{}', vary === undefined ? {} : { vary })], { corsOrigins: [ORIGIN] });
    return (await send(yoga, ENDPOINT)).headers.vary;
  }

  it('says an answer varies by Origin when it named nothing', async () => {
    expect(await varyAfter(undefined)).toBe('Origin');
  });

  it('adds Origin to what an answer already varies by', async () => {
    expect(await varyAfter('Accept-Encoding')).toBe('Accept-Encoding, Origin');
    // A header that merely contains the word is another header.
    expect(await varyAfter('X-Origin-Hint')).toBe('X-Origin-Hint, Origin');
  });

  it('names Origin once, whatever its case and place in the list', async () => {
    expect(await varyAfter('Origin')).toBe('Origin');
    expect(await varyAfter('accept-encoding,ORIGIN')).toBe('accept-encoding,ORIGIN');
    expect(await varyAfter('origin , Accept-Encoding')).toBe('origin , Accept-Encoding');
  });

  it('gives an allowed origin its CORS headers, and says the answer varies by Origin, which Yoga does not say for one origin', async () => {
    const answer = await send(withCors, `${ENDPOINT}?query={hello}`, { headers: { origin: ORIGIN } });
    expect([answer.headers['access-control-allow-origin'], answer.headers.vary]).toEqual([ORIGIN, 'Origin']);
    const other = await send(withCors, `${ENDPOINT}?query={hello}`, { headers: { origin: 'http://elsewhere.example' } });
    expect([other.headers['access-control-allow-origin'], other.headers.vary]).toEqual([undefined, 'Origin']);
  });

  it('gives no CORS header and no Vary when CORS is off', async () => {
    const answer = await send(yogaFinishing(), `${ENDPOINT}?query={hello}`, { headers: { origin: ORIGIN } });
    expect([answer.headers['access-control-allow-origin'], answer.headers.vary]).toEqual([undefined, undefined]);
  });

  it('on a preflight, adds Access-Control-Request-Headers as well, whether the preflight sent it or not', async () => {
    const preflight = (headers: Record<string, string>) =>
      send(withCors, ENDPOINT, { method: 'OPTIONS', headers: { origin: ORIGIN, 'access-control-request-method': 'POST', ...headers } });
    const asking = await preflight({ 'access-control-request-headers': 'authorization,x-dtc' });
    const notAsking = await preflight({});
    expect([asking.status, asking.headers['access-control-allow-headers'], asking.headers.vary]).toEqual([
      204,
      'authorization,x-dtc',
      'Access-Control-Request-Headers, Origin',
    ]);
    expect([notAsking.headers['access-control-allow-headers'], notAsking.headers.vary]).toEqual([
      undefined,
      'Origin, Access-Control-Request-Headers',
    ]);
  });
});

/** `{"data":{"text":"xx…"}}`: 20 bytes around the text. */
const answerOf = (bytes: number) => JSON.stringify({ data: { text: 'x'.repeat(bytes - 20) } });

/** A GraphQL answer of exactly `bytes` bytes, asked for with this Accept-Encoding (null: none). */
function answerSized(yoga: ReturnType<typeof yogaWith>, bytes: number, acceptEncoding: string | null = 'gzip') {
  const query = encodeURIComponent(`{ text(length: ${bytes - 20}) }`);
  return sendForBytes(yoga, `${ENDPOINT}?query=${query}`, {
    headers: { 'x-request-id': 'r', ...(acceptEncoding === null ? {} : { 'accept-encoding': acceptEncoding }) },
  });
}

const gunzipped = (bytes: Buffer) => gunzipSync(bytes).toString('utf8');

describe('useAnswerFinishing: gzip', () => {
  const yoga = yogaFinishing();

  it('gzips an answer of 1024 bytes by default, and says so in Content-Encoding, Content-Length and Vary', async () => {
    const answer = await answerSized(yoga, 1024);
    expect(answer.status).toBe(200);
    expect(answer.headers).toEqual({
      'content-type': 'application/json; charset=utf-8',
      'content-encoding': 'gzip',
      'content-length': String(answer.bytes.length),
      vary: 'Accept-Encoding',
      'x-request-id': 'r',
      ...GIVEN,
    });
    expect(answer.bytes.length).toBeLessThan(1024);
    expect(gunzipped(answer.bytes)).toBe(answerOf(1024));
  });

  it('sends an answer below 1024 bytes as it is', async () => {
    const answer = await answerSized(yoga, 1023);
    expect(answer.headers).toEqual({
      'content-type': 'application/json; charset=utf-8',
      'content-length': '1023',
      'x-request-id': 'r',
      ...GIVEN,
    });
    expect(answer.bytes.toString('utf8')).toBe(answerOf(1023));
  });

  it('takes its threshold from compressionMinBytes', async () => {
    const small = yogaFinishing([], { compressionMinBytes: 100 });
    expect((await answerSized(small, 100)).headers['content-encoding']).toBe('gzip');
    expect((await answerSized(small, 99)).headers).not.toHaveProperty('content-encoding');
    expect((await answerSized(yogaFinishing([], { compressionMinBytes: 0 }), 21)).headers['content-encoding']).toBe('gzip');
  });

  it.each([
    ['gzip', true],
    ['x-gzip', true],
    ['*', true],
    ['GZIP', true],
    ['br, deflate, gzip;q=0.5', true],
    ['gzip;q=0', false],
    ['gzip; q=0.0', false],
    ['*;q=0', false],
    ['br, deflate', false],
    ['identity', false],
    [null, false],
  ])('reads Accept-Encoding %j as %s', async (acceptEncoding, compressed) => {
    const answer = await answerSized(yoga, 2048, acceptEncoding);
    expect(answer.headers['content-encoding']).toBe(compressed ? 'gzip' : undefined);
    expect(compressed ? gunzipped(answer.bytes) : answer.bytes.toString('utf8')).toBe(answerOf(2048));
  });

  it('gzips a large answer off the event loop to the same bytes', async () => {
    const answer = await answerSized(yoga, 200_000);
    expect(answer.headers['content-length']).toBe(String(answer.bytes.length));
    expect(gunzipped(answer.bytes)).toBe(answerOf(200_000));
  });

  it('keeps the status and the other headers of the answer it compresses', async () => {
    const everything = yogaFinishing([], { compressionMinBytes: 1 });
    const answer = await sendForBytes(everything, ENDPOINT, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', 'accept-encoding': 'gzip' },
      body: JSON.stringify({ query: '{ nothing }' }),
    });
    expect([answer.status, answer.headers['content-type']]).toEqual([400, 'application/graphql-response+json; charset=utf-8']);
    expect(JSON.parse(gunzipped(answer.bytes))).toEqual({
      errors: [
        {
          message: 'Cannot query field "nothing" on type "Query".',
          locations: [{ line: 1, column: 3 }],
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
        },
      ],
    });
  });

  it('appends Accept-Encoding to the Vary header an answer already has', async () => {
    const body = 'y'.repeat(2000);
    const varied = yogaFinishing([answering(body, { 'content-type': 'text/plain', vary: 'Origin' })]);
    const answer = await sendForBytes(varied, ENDPOINT, { headers: { 'accept-encoding': 'gzip' } });
    expect(answer.headers.vary).toBe('Origin, Accept-Encoding');
    expect(gunzipped(answer.bytes)).toBe(body);
  });

  it('leaves an answer that is already encoded alone', async () => {
    const body = 'z'.repeat(2000);
    const encoded = yogaFinishing([answering(body, { 'content-encoding': 'br' })]);
    const answer = await sendForBytes(encoded, ENDPOINT, { headers: { 'accept-encoding': 'gzip, br' } });
    expect([answer.headers['content-encoding'], answer.headers.vary, answer.bytes.toString('utf8')]).toEqual(['br', undefined, body]);
  });

  it('leaves a streamed answer, which has no Content-Length, alone, even with compressionMinBytes 0', async () => {
    const body = 'w'.repeat(5000);
    const streaming: Plugin = {
      onRequest: ({ endResponse, fetchAPI }) => {
        const stream = new fetchAPI.ReadableStream({
          start: (controller) => {
            controller.enqueue(new TextEncoder().encode(body));
            controller.close();
          },
        });
        endResponse(new fetchAPI.Response(stream, { headers: { 'content-type': 'text/plain' } }));
      },
    };
    const answer = await sendForBytes(yogaFinishing([streaming], { compressionMinBytes: 0 }), ENDPOINT, {
      headers: { 'accept-encoding': 'gzip', 'x-request-id': 'r' },
    });
    expect([answer.headers, answer.bytes.toString('utf8')]).toEqual([
      { 'content-type': 'text/plain', 'x-request-id': 'r', ...GIVEN },
      body,
    ]);
  });

  it('passes an answer in parts (@stream) through as its parts come: the first is read before the second is even made', async () => {
    let release!: () => void;
    const second = new Promise<void>((resolve) => (release = resolve));
    const schema = createSchema({
      typeDefs: 'type Query { items: [String!]! }',
      resolvers: {
        Query: {
          items: async function* () {
            yield 'x'.repeat(2000);
            await second;
            yield 'y'.repeat(2000);
          },
        },
      },
    });
    const yoga = yogaWith([useDeferStream(), finishing({ compressionMinBytes: 0 })], { schema });
    const response = await postForParts(yoga, { query: '{ items @stream(initialCount: 1) }' }, { headers: { 'accept-encoding': 'gzip' } });
    expect(response.headers.get('content-encoding')).toBeNull();
    const parts = partsOf(response);
    expect((await parts.next()).value).toEqual({ data: { items: ['x'.repeat(2000)] }, hasNext: true });
    release();
    expect((await parts.next()).value?.incremental).toEqual([{ items: ['y'.repeat(2000)], path: ['items', 1] }]);
  });
});
