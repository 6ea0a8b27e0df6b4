import { describe, expect, it } from 'vitest';
import { useAutomaticPersistedQueries } from '../../src/plugins/use-automatic-persisted-queries.js';
import { apqEntryBytes, InProcessPersistedQueries } from '../../src/state/persisted-queries.js';
import { apqExtensions, sha256 } from '../support/apq.js';
import { heapAfterGc } from '../support/heap.js';
import { answerTo, ENDPOINT, post, send, yogaWith } from '../support/yoga.js';

/** What Apollo's PersistedQueryLink and urql's persistedExchange send first: the hash alone. */
const hashOnly = (text: string) => ({ extensions: apqExtensions(text) });
/** What they send after PERSISTED_QUERY_NOT_FOUND: the text with its hash. */
const withText = (text: string) => ({ query: text, extensions: apqExtensions(text) });

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
    const answer = await send(yoga, `${ENDPOINT}?extensions=${encodeURIComponent(JSON.stringify(apqExtensions(HELLO)))}`);
    expect([answer.status, answer.body]).toEqual([200, { data: { hello: 'Hello world' } }]);
  });

  it('refuses a text that does not have the hash sent with it, and registers nothing', async () => {
    const yoga = yogaWith([useAutomaticPersistedQueries()]);
    expect(await answerTo(yoga, { query: '{ text(length: 1) }', extensions: apqExtensions(HELLO) })).toEqual({
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

  it('parses and validates a registered text like any other, and keeps it only once it passed', async () => {
    const yoga = yogaWith([useAutomaticPersistedQueries()]);
    const { status, body } = await answerTo(yoga, withText('{ nothing }'));
    expect([status, body.errors[0].extensions.code]).toEqual([400, 'GRAPHQL_VALIDATION_FAILED']);
    expect(await answerTo(yoga, hashOnly('{ nothing }'))).toEqual(NOT_FOUND);
    const junk = '}{ not GraphQL';
    expect((await answerTo(yoga, withText(junk))).body.errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
    expect(await answerTo(yoga, hashOnly(junk))).toEqual(NOT_FOUND);
  });

  it('leaves a query that is not a string to Yoga, which refuses it 400 BAD_REQUEST, even with the hash of its text form', async () => {
    const yoga = yogaWith([useAutomaticPersistedQueries()]);
    for (const [query, type] of [
      [{ hello: 1 }, 'object'],
      [123, 'number'],
      [true, 'boolean'],
    ] as const) {
      expect(await answerTo(yoga, { query, extensions: apqExtensions(String(query)) })).toEqual({
        status: 400,
        body: { errors: [{ message: `Expected "query" param to be a string, but given ${type}.`, extensions: { code: 'BAD_REQUEST' } }] },
      });
    }
  });

  it('registers nothing under a persistedQuery it does not check (a version other than 1)', async () => {
    const yoga = yogaWith([useAutomaticPersistedQueries()]);
    const other = '{ text(length: 1) }';
    const unchecked = { query: HELLO, extensions: { persistedQuery: { version: 2, sha256Hash: sha256(other) } } };
    expect(await answerTo(yoga, unchecked)).toEqual({ status: 200, body: { data: { hello: 'Hello world' } } });
    expect(await answerTo(yoga, hashOnly(other))).toEqual(NOT_FOUND);
  });

  it('keeps at most apqStoreBytes of texts, hashes and entries, dropping the least recently used first', async () => {
    const [first, second] = ['{ hello }', '{ text(length: 1) }'];
    // Room for the larger entry alone.
    const yoga = yogaWith([useAutomaticPersistedQueries({ store: new InProcessPersistedQueries(apqEntryBytes(sha256(second), second)) })]);
    await post(yoga, withText(first));
    expect((await answerTo(yoga, hashOnly(first))).status).toBe(200);
    await post(yoga, withText(second));
    expect((await answerTo(yoga, hashOnly(second))).status).toBe(200);
    expect(await answerTo(yoga, hashOnly(first))).toEqual(NOT_FOUND);
  });

  it('runs a text larger than the store, without keeping it', async () => {
    const yoga = yogaWith([useAutomaticPersistedQueries({ store: new InProcessPersistedQueries(64) })]);
    expect(await answerTo(yoga, withText(HELLO))).toEqual({ status: 200, body: { data: { hello: 'Hello world' } } });
    expect(await answerTo(yoga, hashOnly(HELLO))).toEqual(NOT_FOUND);
  });

  it('keeps 8 MiB by default', async () => {
    const yoga = yogaWith([useAutomaticPersistedQueries()]);
    // Entries of 64 KiB: 128 of them fill 8 MiB.
    const padded = `{ hello } # 000`;
    const overhead = apqEntryBytes(sha256(padded), padded) - padded.length;
    const text = (i: number) => `{ hello } # ${String(i).padStart(3, '0')}`.padEnd(65_536 - overhead, '.');
    expect(apqEntryBytes(sha256(text(0)), text(0))).toBe(65_536);
    for (let i = 0; i < 128; i++) await post(yoga, withText(text(i)));
    expect((await answerTo(yoga, hashOnly(text(1)))).status).toBe(200);
    await post(yoga, withText(text(128)));
    expect(await answerTo(yoga, hashOnly(text(0)))).toEqual(NOT_FOUND);
    expect((await answerTo(yoga, hashOnly(text(1)))).status).toBe(200);
  });

  it('holds no more heap than apqStoreBytes, however small the texts registered', async () => {
    const apqStoreBytes = 512 * 1024;
    // Yoga's count took about 80 bytes for each, a third of what it holds: 4,000 of them held 807 KiB.
    const registerAll = (text: (serial: number) => string) => async (yoga: ReturnType<typeof yogaWith>) => {
      for (let first = 0; first < 4_000; first += 100) {
        await post(
          yoga,
          Array.from({ length: 100 }, (_, i) => withText(text(first + i))),
        );
      }
    };
    const tiny = (serial: number) => `{hello}#${serial}`;
    // Each measured twice, the smaller kept: garbage another test file's worker leaves can only add to a measurement.
    const twice = async (measure: () => Promise<number>) => Math.min(await measure(), await measure());
    const registered = await twice(() =>
      heapHeldBy(apqStoreBytes, async (yoga) => {
        await registerAll(tiny)(yoga);
        // The last ones are kept, the first long gone.
        expect((await answerTo(yoga, hashOnly(tiny(3_999)))).status).toBe(200);
        expect(await answerTo(yoga, hashOnly(tiny(0)))).toEqual(NOT_FOUND);
      }),
    );
    // The same traffic with texts that fail validation and are never kept: what the server holds besides the store.
    const besides = await twice(() =>
      heapHeldBy(
        apqStoreBytes,
        registerAll((serial) => `{nope}#${serial}`),
      ),
    );
    const held = registered - besides;
    console.info(
      `4,000 tiny persisted queries: the store holds ${(held / 1024).toFixed(0)} KiB of heap, against ${apqStoreBytes / 1024} KiB`,
    );
    expect(held).toBeLessThan(apqStoreBytes);
  });
});

/**
 * The heap a server with the plugin holds once `use` has run: the heap with it, less the heap once
 * it is gone, so that code warming up and other tests' leftovers cancel out.
 */
async function heapHeldBy(apqStoreBytes: number, use: (yoga: ReturnType<typeof yogaWith>) => Promise<void>): Promise<number> {
  let yoga: ReturnType<typeof yogaWith> | undefined = yogaWith(
    [useAutomaticPersistedQueries({ store: new InProcessPersistedQueries(apqStoreBytes) })],
    {
      batching: { limit: 100 },
      parserAndValidationCache: false,
    },
  );
  await use(yoga);
  const withServer = heapAfterGc();
  yoga = undefined;
  return withServer - heapAfterGc();
}
