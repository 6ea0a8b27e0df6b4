import { gunzipSync } from 'node:zlib';
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { createSchema, type Plugin } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { useCompression } from '../../src/plugins/use-compression.js';
import { partsOf } from '../support/incremental.js';
import { answering, ENDPOINT, postForParts, sendForBytes, yogaWith } from '../support/yoga.js';

/** `{"data":{"text":"xx…"}}`: 20 bytes around the text. */
const answerOf = (bytes: number) => JSON.stringify({ data: { text: 'x'.repeat(bytes - 20) } });

/** A GraphQL answer of exactly `bytes` bytes, asked for with this Accept-Encoding (null: none). */
function answerSized(yoga: ReturnType<typeof yogaWith>, bytes: number, acceptEncoding: string | null = 'gzip') {
  const query = encodeURIComponent(`{ text(length: ${bytes - 20}) }`);
  return sendForBytes(yoga, `${ENDPOINT}?query=${query}`, {
    headers: acceptEncoding === null ? {} : { 'accept-encoding': acceptEncoding },
  });
}

const gzipped = (bytes: Buffer) => gunzipSync(bytes).toString('utf8');

describe('useCompression', () => {
  const yoga = yogaWith([useCompression()]);

  it('gzips an answer of 1024 bytes by default, and says so in Content-Encoding, Content-Length and Vary', async () => {
    const answer = await answerSized(yoga, 1024);
    expect(answer.status).toBe(200);
    expect(answer.headers).toEqual({
      'content-type': 'application/json; charset=utf-8',
      'content-encoding': 'gzip',
      'content-length': String(answer.bytes.length),
      vary: 'Accept-Encoding',
    });
    expect(answer.bytes.length).toBeLessThan(1024);
    expect(gzipped(answer.bytes)).toBe(answerOf(1024));
  });

  it('sends an answer below 1024 bytes as it is', async () => {
    const answer = await answerSized(yoga, 1023);
    expect(answer.headers).toEqual({ 'content-type': 'application/json; charset=utf-8', 'content-length': '1023' });
    expect(answer.bytes.toString('utf8')).toBe(answerOf(1023));
  });

  it('takes its threshold from compressionMinBytes', async () => {
    const small = yogaWith([useCompression({ compressionMinBytes: 100 })]);
    expect((await answerSized(small, 100)).headers['content-encoding']).toBe('gzip');
    expect((await answerSized(small, 99)).headers).not.toHaveProperty('content-encoding');
    expect((await answerSized(yogaWith([useCompression({ compressionMinBytes: 0 })]), 21)).headers['content-encoding']).toBe('gzip');
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
    expect(compressed ? gzipped(answer.bytes) : answer.bytes.toString('utf8')).toBe(answerOf(2048));
  });

  it('gzips a large answer off the event loop to the same bytes', async () => {
    const answer = await answerSized(yoga, 200_000);
    expect(answer.headers['content-length']).toBe(String(answer.bytes.length));
    expect(gzipped(answer.bytes)).toBe(answerOf(200_000));
  });

  it('keeps the status and the other headers of the answer it compresses', async () => {
    const everything = yogaWith([useCompression({ compressionMinBytes: 1 })]);
    const answer = await sendForBytes(everything, ENDPOINT, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', 'accept-encoding': 'gzip' },
      body: JSON.stringify({ query: '{ nothing }' }),
    });
    expect([answer.status, answer.headers['content-type']]).toEqual([400, 'application/graphql-response+json; charset=utf-8']);
    expect(JSON.parse(gzipped(answer.bytes))).toEqual({
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
    const varied = yogaWith([answering(body, { 'content-type': 'text/plain', vary: 'Origin' }), useCompression()]);
    const answer = await sendForBytes(varied, ENDPOINT, { headers: { 'accept-encoding': 'gzip' } });
    expect(answer.headers.vary).toBe('Origin, Accept-Encoding');
    expect(gzipped(answer.bytes)).toBe(body);
  });

  it('leaves an answer that is already encoded alone', async () => {
    const body = 'z'.repeat(2000);
    const encoded = yogaWith([answering(body, { 'content-encoding': 'br' }), useCompression()]);
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
    const answer = await sendForBytes(yogaWith([streaming, useCompression({ compressionMinBytes: 0 })]), ENDPOINT, {
      headers: { 'accept-encoding': 'gzip' },
    });
    expect([answer.headers, answer.bytes.toString('utf8')]).toEqual([{ 'content-type': 'text/plain' }, body]);
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
    const yoga = yogaWith([useDeferStream(), useCompression({ compressionMinBytes: 0 })], { schema });
    const response = await postForParts(yoga, { query: '{ items @stream(initialCount: 1) }' }, { headers: { 'accept-encoding': 'gzip' } });
    expect(response.headers.get('content-encoding')).toBeNull();
    const parts = partsOf(response);
    expect((await parts.next()).value).toEqual({ data: { items: ['x'.repeat(2000)] }, hasNext: true });
    release();
    expect((await parts.next()).value?.incremental).toEqual([{ items: ['y'.repeat(2000)], path: ['items', 1] }]);
  });
});
