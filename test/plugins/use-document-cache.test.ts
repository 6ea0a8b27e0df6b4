import type { Plugin } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { useDocumentCache } from '../../src/plugins/use-document-cache.js';
import { answerTo, ENDPOINT, send, yogaWith } from '../support/yoga.js';

/** Counts how often documents are parsed and validated for real (a cache hit skips both). */
function counting() {
  const counts = { parsed: 0, validated: 0 };
  const plugin: Plugin = {
    onParse: ({ parseFn, setParseFn }) =>
      setParseFn((source, options) => {
        counts.parsed++;
        return parseFn(source, options);
      }),
    onValidate: ({ addValidationRule }) =>
      addValidationRule(() => {
        counts.validated++;
        return {};
      }),
  };
  return { counts, plugin };
}

/** As Yoga is set up in the gateway: its own cache off, this one in its place. */
const yogaWithCache = (options: Parameters<typeof useDocumentCache>[0], plugins: Plugin[] = []) =>
  yogaWith([useDocumentCache(options), ...plugins], { parserAndValidationCache: false });

describe('useDocumentCache', () => {
  it('refuses a document over maxDocumentBytes, counted in UTF-8, before anything parses it', async () => {
    const { counts, plugin } = counting();
    const yoga = yogaWithCache({ maxDocumentBytes: 1024 }, [plugin]);
    // Padded with é, two bytes each in UTF-8: 1,024 bytes exactly pass, one more does not.
    const padded = (bytes: number) => {
      const rest = bytes - '{ hello } #'.length;
      return `{ hello } #${'x'.repeat(rest % 2)}${'é'.repeat(Math.floor(rest / 2))}`;
    };
    expect(Buffer.byteLength(padded(1024))).toBe(1024);
    expect((await answerTo(yoga, { query: padded(1024) })).status).toBe(200);
    expect(await answerTo(yoga, { query: `${padded(1024)} ` })).toEqual({
      status: 400,
      body: {
        errors: [
          {
            message: 'The document is larger than 1024 bytes (MAX_DOCUMENT_BYTES).',
            extensions: { code: 'LIMIT_EXCEEDED', limit: 'documentBytes', max: 1024 },
          },
        ],
      },
    });
    expect(counts.parsed).toBe(1);
  });

  it('refuses an oversized document sent by GET too', async () => {
    const yoga = yogaWithCache({ maxDocumentBytes: 1024 });
    const answer = await send(yoga, `${ENDPOINT}?query=${encodeURIComponent(`{ hello } #${'x'.repeat(1100)}`)}`);
    expect([answer.status, answer.body.errors[0].extensions.limit]).toEqual([400, 'documentBytes']);
  });

  it('parses and validates a valid document once, and answers it from the cache afterwards', async () => {
    const { counts, plugin } = counting();
    const yoga = yogaWithCache({}, [plugin]);
    for (let i = 0; i < 3; i++) expect((await answerTo(yoga, { query: '{ hello }' })).body).toEqual({ data: { hello: 'Hello world' } });
    expect(counts).toEqual({ parsed: 1, validated: 1 });
  });

  it('keeps nothing of a document that fails validation, or does not parse', async () => {
    const { counts, plugin } = counting();
    const yoga = yogaWithCache({}, [plugin]);
    for (let i = 0; i < 2; i++) {
      expect((await answerTo(yoga, { query: '{ nope }' })).status).toBe(400);
      expect((await answerTo(yoga, { query: '{ hello' })).status).toBe(400);
    }
    // Parsed each time, both of them; validated each time, the one that parses.
    expect(counts).toEqual({ parsed: 4, validated: 2 });
  });

  it('holds at most documentCacheBytes: the least recently used documents are parsed again', async () => {
    const { counts, plugin } = counting();
    // Five tokens each, with the start and the end of the text: 2 × 9 + 400 × 5 = 2,018 bytes for
    // `{ hello }`, 2,016 for the two of 8 characters, 2,014 for `{hello}`; the first three fill it.
    const yoga = yogaWithCache({ documentCacheBytes: 2018 + 2016 + 2016 }, [plugin]);
    const queries = ['{ hello }', '{hello }', '{ hello}', '{hello}'];
    for (const query of queries) await answerTo(yoga, { query });
    expect(counts.parsed).toBe(4);
    await answerTo(yoga, { query: '{hello}' });
    await answerTo(yoga, { query: '{ hello }' });
    expect(counts.parsed).toBe(5);
  });

  it('with documentCacheBytes 0 keeps nothing', async () => {
    const { counts, plugin } = counting();
    const yoga = yogaWithCache({ documentCacheBytes: 0 }, [plugin]);
    for (let i = 0; i < 2; i++) await answerTo(yoga, { query: '{ hello }' });
    expect(counts).toEqual({ parsed: 2, validated: 2 });
  });
});
