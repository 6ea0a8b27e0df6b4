import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useAutomaticPersistedQueries } from '../../src/plugins/use-automatic-persisted-queries.js';
import { answerTo, ENDPOINT, post, send, yogaWith } from '../support/yoga.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const persisted = (text: string) => ({ persistedQuery: { version: 1, sha256Hash: sha256(text) } });
/** What Apollo's PersistedQueryLink and urql's persistedExchange send first: the hash alone. */
const hashOnly = (text: string) => ({ extensions: persisted(text) });
/** What they send after PERSISTED_QUERY_NOT_FOUND: the text with its hash. */
const withText = (text: string) => ({ query: text, extensions: persisted(text) });

const NOT_FOUND = {
  status: 404,
  body: { errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] },
};
const HELLO = '{ hello }';

describe('useAutomaticPersistedQueries', () => {
  it('answers an unknown hash 404 PERSISTED_QUERY_NOT_FOUND, then runs it once the text came with it', async () => {
    const yoga = yogaWith([useAutomaticPersistedQueries()]);
    expect(await answerTo(yoga, hashOnly(HELLO))).toEqual(NOT_FOUND);
    expect(await answerTo(yoga, withText(HELLO))).toEqual({ status: 200, body: { data: { hello: 'Hello world' } } });
    expect(await answerTo(yoga, hashOnly(HELLO))).toEqual({ status: 200, body: { data: { hello: 'Hello world' } } });
  });

  it('runs a registered hash sent by GET, as Apollo sends hashed queries', async () => {
    const yoga = yogaWith([useAutomaticPersistedQueries()]);
    await post(yoga, withText(HELLO));
    const answer = await send(yoga, `${ENDPOINT}?extensions=${encodeURIComponent(JSON.stringify(persisted(HELLO)))}`);
    expect([answer.status, answer.body]).toEqual([200, { data: { hello: 'Hello world' } }]);
  });

  it('refuses a text that does not have the hash sent with it, and registers nothing', async () => {
    const yoga = yogaWith([useAutomaticPersistedQueries()]);
    expect(await answerTo(yoga, { query: '{ text(length: 1) }', extensions: persisted(HELLO) })).toEqual({
      status: 400,
      body: { errors: [{ message: 'PersistedQueryMismatch', extensions: { code: 'PERSISTED_QUERY_MISMATCH' } }] },
    });
    expect(await answerTo(yoga, hashOnly(HELLO))).toEqual(NOT_FOUND);
  });

  it('runs requests without a persisted query as they are', async () => {
    const yoga = yogaWith([useAutomaticPersistedQueries()]);
    expect(await answerTo(yoga, { query: HELLO })).toEqual({ status: 200, body: { data: { hello: 'Hello world' } } });
    expect(await answerTo(yoga, hashOnly(HELLO))).toEqual(NOT_FOUND);
  });

  it('parses and validates a registered text like any other', async () => {
    const yoga = yogaWith([useAutomaticPersistedQueries()]);
    const { status, body } = await answerTo(yoga, withText('{ nothing }'));
    expect([status, body.errors[0].extensions.code]).toEqual([400, 'GRAPHQL_VALIDATION_FAILED']);
  });

  it('keeps at most apqStoreBytes of text and hashes, dropping the least recently used first', async () => {
    const [first, second] = ['{ hello }', '{ text(length: 1) }'];
    // Each entry is its text's bytes plus the 64 characters of its hash: room for the larger one alone.
    const yoga = yogaWith([useAutomaticPersistedQueries({ apqStoreBytes: second.length + 64 })]);
    await post(yoga, withText(first));
    expect((await answerTo(yoga, hashOnly(first))).status).toBe(200);
    await post(yoga, withText(second));
    expect((await answerTo(yoga, hashOnly(second))).status).toBe(200);
    expect(await answerTo(yoga, hashOnly(first))).toEqual(NOT_FOUND);
  });

  it('runs a text larger than the store, without keeping it', async () => {
    const yoga = yogaWith([useAutomaticPersistedQueries({ apqStoreBytes: 64 })]);
    expect(await answerTo(yoga, withText(HELLO))).toEqual({ status: 200, body: { data: { hello: 'Hello world' } } });
    expect(await answerTo(yoga, hashOnly(HELLO))).toEqual(NOT_FOUND);
  });

  it('keeps 8 MiB by default', async () => {
    const yoga = yogaWith([useAutomaticPersistedQueries()]);
    // Entries of 64 KiB (text and hash): 128 of them fill 8 MiB.
    const text = (i: number) => `{ hello } # ${String(i).padStart(3, '0')}`.padEnd(65_536 - 64, '.');
    for (let i = 0; i < 128; i++) await post(yoga, withText(text(i)));
    expect((await answerTo(yoga, hashOnly(text(1)))).status).toBe(200);
    await post(yoga, withText(text(128)));
    expect(await answerTo(yoga, hashOnly(text(0)))).toEqual(NOT_FOUND);
    expect((await answerTo(yoga, hashOnly(text(1)))).status).toBe(200);
  });
});
