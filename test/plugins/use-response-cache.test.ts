import { createSchema } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { recordOf } from '../../src/operation-record.js';
import { useRequestSummary } from '../../src/plugins/use-request-summary.js';
import { useResponseCache } from '../../src/plugins/use-response-cache.js';
import { CacheLookups } from '../../src/state/cache-lookups.js';
import { InProcessResponseCache } from '../../src/state/response-cache.js';
import { recordCalls } from '../support/summaries.js';
import { post, yogaWith } from '../support/yoga.js';

/** A schema that counts its executions, and can fail or change on demand. */
function counting() {
  const runs = { query: 0, mutation: 0 };
  let fail = false;
  const schema = createSchema({
    typeDefs: /* GraphQL */ `
      type Query {
        count(by: Int): Int
      }
      type Mutation {
        touch: Int
      }
    `,
    resolvers: {
      Query: {
        count: (_: unknown, { by }: { by?: number }) => {
          const run = ++runs.query;
          if (fail) throw new Error('broken');
          return run * (by ?? 1);
        },
      },
      Mutation: { touch: () => ++runs.mutation },
    },
  });
  let status = 200;
  return {
    schema,
    runs,
    failNext: (value: boolean) => (fail = value),
    /** The status the upstream answers the operations' calls with. */
    upstreamStatus: () => status,
    answerWith: (value: number) => (status = value),
  };
}

const ALICE = { authorization: 'Bearer alice' };

function cached(cacheTtlMs = 60_000) {
  const world = counting();
  /** What the cache did with each operation, as its record tells the request summary. */
  const outcomes: string[] = [];
  const yoga = yogaWith(
    [
      useResponseCache({ lookups: new CacheLookups(new InProcessResponseCache(1024 * 1024)), cacheTtlMs }),
      useRequestSummary({ onSummary: ({ cache }) => cache && outcomes.push(cache) }),
    ],
    {
      schema: world.schema,
      // Each operation makes an upstream call that accepts the caller's token, as the gateway's do.
      context: (context: object) => {
        recordCalls(recordOf(context), [world.upstreamStatus()]);
        return {};
      },
    },
  );
  return { yoga, outcomes, ...world };
}

describe('useResponseCache', () => {
  it('answers a caller’s repeated query from the cache, without executing it', async () => {
    const { yoga, runs, outcomes } = cached();
    expect((await post(yoga, { query: '{ count }' }, ALICE)).body).toEqual({ data: { count: 1 } });
    expect((await post(yoga, { query: '{ count }' }, ALICE)).body).toEqual({ data: { count: 1 } });
    expect([runs.query, outcomes]).toEqual([1, ['miss', 'hit']]);
  });

  it('keys on the text, the operation name and the variables, and on the caller', async () => {
    const { yoga, runs } = cached();
    await post(yoga, { query: 'query Q($by: Int) { count(by: $by) }', variables: { by: 2 } }, ALICE);
    await post(yoga, { query: 'query Q($by: Int) { count(by: $by) }', variables: { by: 3 } }, ALICE);
    await post(yoga, { query: 'query Q($by: Int) { count(by: $by) }', variables: { by: 2 } }, { authorization: 'Bearer bob' });
    await post(yoga, { query: 'query Q($by: Int) { count(by: $by) }', variables: { by: 2 } }, ALICE);
    expect(runs.query).toBe(3);
  });

  it('never reads or writes for a request without a Bearer credential', async () => {
    const { yoga, runs, outcomes } = cached();
    await post(yoga, { query: '{ count }' });
    await post(yoga, { query: '{ count }' });
    expect([runs.query, outcomes]).toEqual([2, []]);
  });

  it('never keeps an answer the upstream did not give this caller: none made no call, or one refused its token', async () => {
    const { yoga, runs, answerWith } = cached();
    answerWith(401);
    await post(yoga, { query: '{ count }' }, ALICE);
    await post(yoga, { query: '{ count }' }, ALICE);
    expect(runs.query).toBe(2);
  });

  it('never keeps an answer with an error', async () => {
    const { yoga, runs, failNext } = cached();
    failNext(true);
    expect((await post(yoga, { query: '{ count }' }, ALICE)).body.errors).toHaveLength(1);
    failNext(false);
    expect((await post(yoga, { query: '{ count }' }, ALICE)).body).toEqual({ data: { count: 2 } });
    expect(runs.query).toBe(2);
  });

  it('a mutation drops the caller’s answers, and is never cached itself', async () => {
    const { yoga, runs } = cached();
    await post(yoga, { query: '{ count }' }, ALICE);
    await post(yoga, { query: 'mutation { touch }' }, ALICE);
    await post(yoga, { query: 'mutation { touch }' }, ALICE);
    expect((await post(yoga, { query: '{ count }' }, ALICE)).body).toEqual({ data: { count: 2 } });
    expect(runs).toEqual({ query: 2, mutation: 2 });
  });

  it('Cache-Control: no-cache executes again and refreshes the entry', async () => {
    const { yoga, outcomes } = cached();
    await post(yoga, { query: '{ count }' }, ALICE);
    expect((await post(yoga, { query: '{ count }' }, { ...ALICE, 'cache-control': 'no-cache' })).body).toEqual({ data: { count: 2 } });
    expect((await post(yoga, { query: '{ count }' }, ALICE)).body).toEqual({ data: { count: 2 } });
    expect(outcomes).toEqual(['miss', 'bypass', 'hit']);
  });
});
