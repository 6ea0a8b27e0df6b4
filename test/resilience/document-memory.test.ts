import { describe, expect } from 'vitest';
import { defaultSettings } from '../../src/config/settings.js';
import { apqExtensions } from '../support/apq.js';
import { gatewayOverUpstream } from '../support/fixtures.js';
import type { TestGateway } from '../support/gateway.js';
import { heapAfterGc } from '../support/heap.js';
import { codes } from './harness.js';

/**
 * Memory that anonymous callers can fill is bounded in bytes: documents over MAX_DOCUMENT_BYTES
 * are refused before parsing, and the documents kept between requests fit DOCUMENT_CACHE_BYTES,
 * whatever callers send (issue: 150 distinct 1 MB documents once raised the heap by 444 MiB).
 * Persisted queries are kept only once valid; the heap their store holds is measured in
 * test/plugins/use-automatic-persisted-queries.test.ts.
 */
const { maxDocumentBytes, documentCacheBytes, maxTokens } = defaultSettings({ production: true });

/** Room above the cache's own bound for what the estimate misses and the collector leaves. */
const HEAP_MARGIN_BYTES = 16 * 1024 * 1024;

const it = gatewayOverUpstream(undefined, { production: true });

/**
 * A valid document of about `maxTokens` tokens (the densest a caller may send), made distinct and
 * padded to `bytes` with a comment: it passes validation, so a cache may keep it.
 */
function document(serial: number, bytes = maxDocumentBytes): string {
  const selections = Array.from({ length: Math.floor((maxTokens - 20) / 14) }, () => 'apiKeys(first: 1) { nodes { id name type } }').join(
    ' ',
  );
  const body = `query Q${serial} { ${selections} }\n`;
  return `${body}#${'x'.repeat(bytes - body.length - 2)}\n`;
}

const post = (gateway: TestGateway, query: string) =>
  fetch(gateway.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });

describe('documents sent without a token', () => {
  it('of the largest size allowed: hundreds of distinct ones leave the heap within the cache bound', async ({ gateway }) => {
    expect(Buffer.byteLength(document(1))).toBe(maxDocumentBytes);
    // The document is valid: what it gets is the missing token, not a refusal of the document.
    expect(codes(await gateway.graphql(document(0)))).toEqual(['UNAUTHENTICATED']);
    const before = heapAfterGc();
    for (let round = 0; round < 2; round++) {
      for (let serial = 1; serial <= 150; serial++) await (await post(gateway, document(round * 1000 + serial))).arrayBuffer();
    }
    const grown = heapAfterGc() - before;
    console.info(`300 distinct ${maxDocumentBytes}-byte documents: heap +${(grown / 2 ** 20).toFixed(1)} MiB`);
    expect(grown).toBeLessThan(documentCacheBytes + HEAP_MARGIN_BYTES);
  });

  it('one byte over MAX_DOCUMENT_BYTES: refused before parsing, LIMIT_EXCEEDED', async ({ gateway }) => {
    const response = await post(gateway, document(2, maxDocumentBytes + 1));
    expect([response.status, await response.json()]).toEqual([
      400,
      {
        errors: [
          {
            message: `The document is larger than ${maxDocumentBytes} bytes (MAX_DOCUMENT_BYTES).`,
            extensions: { code: 'LIMIT_EXCEEDED', limit: 'documentBytes', max: maxDocumentBytes },
          },
        ],
      },
    ]);
  });

  it('of about 1 MB, one string literal each (one token): hundreds of them are refused and leave the heap as it was', async ({
    gateway,
  }) => {
    const huge = (serial: number) => `{ apiKeys(after: "${String(serial).padStart(1_000_000, 'x')}") { nodes { id } } }`;
    const before = heapAfterGc();
    for (let serial = 0; serial < 150; serial++) {
      const response = await post(gateway, huge(serial));
      expect(response.status).toBe(400);
      await response.arrayBuffer();
    }
    expect(heapAfterGc() - before).toBeLessThan(HEAP_MARGIN_BYTES);
  });

  it('that fail validation: none is kept, however large the cache', async ({ start, upstream }) => {
    const roomy = await start.gateway({ production: true, upstreamUrl: new URL(upstream.url), documentCacheBytes: 1024 ** 3 });
    const invalid = (serial: number) => document(serial).replace('type }', 'nope }');
    expect(codes(await roomy.graphql(invalid(0)))).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    const before = heapAfterGc();
    for (let serial = 1; serial <= 300; serial++) await (await post(roomy, invalid(serial))).arrayBuffer();
    expect(heapAfterGc() - before).toBeLessThan(HEAP_MARGIN_BYTES);
  });
});

describe('automatic persisted queries registered without a token', () => {
  const persisted = (text: string) => ({ extensions: apqExtensions(text) });
  const register = (text: string) => ({ query: text, ...persisted(text) });
  const postBody = (gateway: TestGateway, body: unknown) =>
    fetch(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body: JSON.stringify(body),
    });
  const NOT_FOUND = { errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] };

  it('are kept only once they parse and validate: junk of the largest size runs once, is never kept and evicts nothing', async ({
    gateway,
  }) => {
    const kept = 'query Kept { __typename }';
    expect(await (await postBody(gateway, register(kept))).json()).toEqual({ data: { __typename: 'Query' } });
    // 200 texts of MAX_DOCUMENT_BYTES are 12.5 MiB, past the store's 8 MiB.
    const junk = (serial: number) => `}{ ${serial} `.padEnd(maxDocumentBytes, 'x');
    const invalid = (serial: number) => `{ nope${serial} }`.padEnd(maxDocumentBytes, ' ');
    for (let serial = 0; serial < 100; serial++) {
      for (const text of [junk(serial), invalid(serial)]) {
        const response = await postBody(gateway, register(text));
        expect(response.status).toBe(400);
        await response.arrayBuffer();
      }
    }
    for (const text of [junk(0), junk(99), invalid(0), invalid(99)]) {
      const response = await postBody(gateway, persisted(text));
      expect([response.status, await response.json()]).toEqual([404, NOT_FOUND]);
    }
    expect(await (await postBody(gateway, persisted(kept))).json()).toEqual({ data: { __typename: 'Query' } });
  });
});
