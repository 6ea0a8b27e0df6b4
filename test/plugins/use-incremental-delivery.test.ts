import { createSchema } from 'graphql-yoga';
import { beforeEach, describe, expect, it } from 'vitest';
import { useIncrementalDelivery } from '../../src/plugins/use-incremental-delivery.js';
import { useLimits } from '../../src/plugins/use-limits.js';
import { allParts, merged, partsOf } from '../support/incremental.js';
import { answerTo, ENDPOINT, post, postForParts, refused, send, yogaWith } from '../support/yoga.js';

/** How many items of `items` the resolver produced, and whether its generator was closed. */
const produced = { items: 0, closed: false };
/** While set, `items` waits for it before each item after the second. */
let gate: Promise<void> | undefined;

/** A list that is produced item by item (as the streamed apiKeys edges are), a slow field to defer, and one that fails. */
const schema = createSchema({
  typeDefs: /* GraphQL */ `
    type Query {
      items(count: Int!): [String!]!
      slow: String!
      broken: [Item!]!
    }
    type Item {
      name: String!
      secret: String
    }
  `,
  resolvers: {
    Query: {
      items: async function* (_: unknown, { count }: { count: number }) {
        try {
          for (let i = 0; i < count; i++) {
            if (i >= 2 && gate) await gate;
            produced.items++;
            yield `item ${i}`;
          }
        } finally {
          produced.closed = true;
        }
      },
      slow: async () => 'late',
      broken: () => [{ name: 'a' }, { name: 'b' }],
    },
    Item: {
      secret: ({ name }: { name: string }) => {
        if (name === 'b') throw new Error('an internal detail of b');
        return 'fine';
      },
    },
  },
});

// Their bounds are useLimits', listed after it as in the gateway.
const yoga = yogaWith([useIncrementalDelivery(), useLimits({ maxIncrementalDirectives: 2, maxInitialCount: 10 })], {
  schema,
  batching: true,
});

beforeEach(() => {
  produced.items = 0;
  produced.closed = false;
  gate = undefined;
});

describe('useIncrementalDelivery', () => {
  it('answers @stream in parts as multipart/mixed: initialCount items first, the others after, merging into the whole list', async () => {
    const response = await postForParts(yoga, { query: '{ items(count: 4) @stream(initialCount: 2) }' });
    expect(response.headers.get('content-type')).toBe('multipart/mixed; boundary="-"');
    // Asks an nginx in front not to buffer it.
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    const parts = await allParts(response);
    expect(parts[0]).toEqual({ data: { items: ['item 0', 'item 1'] }, hasNext: true });
    expect(parts.at(-1)!.hasNext).toBe(false);
    expect(merged(parts)).toEqual({ data: { items: ['item 0', 'item 1', 'item 2', 'item 3'] } });
  });

  it('answers @defer in parts, the deferred fragment after the rest', async () => {
    const parts = await allParts(await postForParts(yoga, { query: '{ items(count: 1) ... @defer(label: "late") { slow } }' }));
    expect(parts).toEqual([
      { data: { items: ['item 0'] }, hasNext: true },
      { incremental: [{ data: { slow: 'late' }, path: [], label: 'late' }], hasNext: false },
    ]);
  });

  it('answers text/event-stream to a client that asks for it', async () => {
    const answer = await send(yoga, ENDPOINT, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: '{ items(count: 2) @stream(initialCount: 1) }' }),
    });
    expect([answer.headers['content-type'], answer.headers['x-accel-buffering']]).toEqual(['text/event-stream', 'no']);
    const events = (answer.body as string).split('\n\n').filter((event) => event.startsWith('event: next'));
    expect(events.map((event) => JSON.parse(event.slice(event.indexOf('data: ') + 6)))).toEqual([
      { data: { items: ['item 0'] }, hasNext: true },
      { incremental: [{ items: ['item 1'], path: ['items', 1] }], hasNext: false },
    ]);
  });

  it('gives the whole answer in one JSON body, as if each directive said if: false, to a client that takes no answer in parts', async () => {
    const query = '{ items(count: 3) @stream(initialCount: 1) ... @defer { slow } }';
    for (const accept of ['application/json', 'application/graphql-response+json', 'application/json, multipart/mixed;charset=latin1']) {
      expect([accept, await answerTo(yoga, { query }, { accept })]).toEqual([
        accept,
        { status: 200, body: { data: { items: ['item 0', 'item 1', 'item 2'], slow: 'late' } } },
      ]);
    }
  });

  it('gives each operation of a batch whole: a batch is one JSON array', async () => {
    expect(
      await answerTo(yoga, [{ query: '{ items(count: 2) @stream }' }, { query: '{ ... @defer { slow } }' }], {
        accept: 'multipart/mixed, application/json',
      }),
    ).toEqual({ status: 200, body: [{ data: { items: ['item 0', 'item 1'] } }, { data: { slow: 'late' } }] });
  });

  it('refuses more @defer and @stream than allowed, counting those of the fragments the operation spreads', async () => {
    const atLimit = '{ items(count: 1) @stream ...F } fragment F on Query { ... @defer { slow } }';
    const pastLimit = '{ items(count: 1) @stream ...F } fragment F on Query { ... @defer { slow } ... @defer { other: slow } }';
    expect((await post(yoga, { query: atLimit }, { accept: 'application/json' })).status).toBe(200);
    expect(await answerTo(yoga, { query: pastLimit })).toEqual(
      refused(
        'incrementalDirectives',
        2,
        'This operation holds 3 @defer and @stream directives, more than the 2 allowed (MAX_INCREMENTAL_DIRECTIVES).',
      ),
    );
  });

  it('refuses an initialCount below 0 or above the longest list, written in the document or given as a variable, before anything runs', async () => {
    const message = 'The initialCount of @stream must be 0 to 10, the longest list a field answers.';
    for (const initialCount of [-1, 11]) {
      expect(await answerTo(yoga, { query: `{ items(count: 1) @stream(initialCount: ${initialCount}) }` })).toEqual(
        refused('initialCount', 10, message),
      );
      const byVariable = { query: 'query ($n: Int!) { items(count: 1) @stream(initialCount: $n) }', variables: { n: initialCount } };
      expect(await answerTo(yoga, byVariable, { accept: 'multipart/mixed, application/graphql-response+json' })).toEqual(
        refused('initialCount', 10, message),
      );
    }
    expect(produced.items).toBe(0);
    expect((await post(yoga, { query: '{ items(count: 1) @stream(initialCount: 10) }' }, { accept: 'application/json' })).status).toBe(200);
  });

  it('masks an unexpected error in a later part as Yoga masks one in the first', async () => {
    const parts = await allParts(await postForParts(yoga, { query: '{ broken @stream(initialCount: 1) { name secret } }' }));
    expect(JSON.stringify(parts)).not.toContain('internal detail');
    expect(merged(parts)).toEqual({
      data: {
        broken: [
          { name: 'a', secret: 'fine' },
          { name: 'b', secret: null },
        ],
      },
      errors: [
        {
          message: 'Unexpected error.',
          locations: [{ line: 1, column: 42 }],
          path: ['broken', 1, 'secret'],
          extensions: { code: 'INTERNAL_SERVER_ERROR' },
        },
      ],
    });
  });

  it('stops the list it streams when the client goes away: the executor gets the request signal and closes the list', async () => {
    let open!: () => void;
    gate = new Promise((resolve) => (open = resolve));
    const client = new AbortController();
    const parts = partsOf(await postForParts(yoga, { query: '{ items(count: 100) @stream(initialCount: 2) }' }, { signal: client.signal }));
    expect((await parts.next()).value).toEqual({ data: { items: ['item 0', 'item 1'] }, hasNext: true });
    client.abort();
    open();
    await expect.poll(() => produced.closed).toBe(true);
    expect(produced.items).toBeLessThan(100);
  });
});
