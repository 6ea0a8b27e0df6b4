import { createSchema } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { recordOf } from '../../src/operation-record.js';
import { useIdempotency } from '../../src/plugins/use-idempotency.js';
import { useRequestSummary } from '../../src/plugins/use-request-summary.js';
import { type IdempotencyKeys, InProcessIdempotencyKeys } from '../../src/state/idempotency-keys.js';
import { upstreamCall } from '../support/summaries.js';
import { finishing, post, yogaWith } from '../support/yoga.js';

/** How the next write's upstream call ends: answered, never sent (refused before it left), sent and lost, or held until released. */
type Upstream = 'answers' | 'unsent' | 'lost' | 'held';

/** A schema whose one mutation makes one upstream call, reported to the operation's record as a Caller reports it, and counts the writes sent. */
function world() {
  const state = { writes: 0, next: 'answers' as Upstream, release: () => {} };
  let arrived = () => {};
  const schema = createSchema({
    typeDefs: /* GraphQL */ `
      type Query {
        read: Int
      }
      type Mutation {
        create(name: String!): Int
      }
    `,
    resolvers: {
      Query: { read: () => state.writes },
      Mutation: {
        create: async (_: unknown, _args: unknown, context: object) => {
          const report = recordOf(context).callSent();
          const upstream = state.next;
          if (upstream === 'unsent') {
            report(upstreamCall({ method: 'POST', status: undefined, sent: false, errorCode: 'UPSTREAM_UNAVAILABLE' }));
            throw new Error('not sent');
          }
          state.writes++;
          if (upstream === 'held') {
            const released = new Promise<void>((resolve) => (state.release = resolve));
            arrived();
            await released;
          }
          if (upstream === 'lost') {
            report(upstreamCall({ method: 'POST', status: undefined, sent: true, errorCode: 'UPSTREAM_TIMEOUT' }));
            throw new Error('no answer');
          }
          report(upstreamCall({ method: 'POST', status: 201 }));
          return state.writes;
        },
      },
    },
  });
  const held = () => {
    state.next = 'held';
    return new Promise<void>((resolve) => (arrived = resolve));
  };
  return { schema, state, held };
}

const ALICE = { authorization: 'Bearer alice' };
const CREATE = { query: 'mutation Create($name: String!) { create(name: $name) }', variables: { name: 'a' } };

/** A gateway's pieces around useIdempotency: the finishing (for its header), the summary (what it did, per operation). */
function keyed(keys: IdempotencyKeys = new InProcessIdempotencyKeys(1024 * 1024)) {
  const { schema, state, held } = world();
  const outcomes: Array<string | undefined> = [];
  const yoga = yogaWith(
    [useIdempotency({ keys }), useRequestSummary({ onSummary: ({ idempotency }) => outcomes.push(idempotency) }), finishing()],
    { schema },
  );
  return { yoga, state, held, outcomes };
}

const withKey = (key: string, headers: Record<string, string> = ALICE) => ({ ...headers, 'idempotency-key': key });

describe('useIdempotency', () => {
  it('runs a keyed mutation once: a retry gets the first answer again, its status and body, marked as replayed', async () => {
    const { yoga, state, outcomes } = keyed();
    const first = await post(yoga, CREATE, withKey('k1'));
    const again = await post(yoga, CREATE, withKey('"k1"'));
    expect([first.status, first.body, first.headers['idempotent-replayed']]).toEqual([200, { data: { create: 1 } }, undefined]);
    expect([again.status, again.body, again.headers['idempotent-replayed']]).toEqual([200, { data: { create: 1 } }, 'true']);
    expect(state.writes).toBe(1);
    expect(outcomes).toEqual(['stored', 'replayed']);
  });

  it('refuses the key with another request, 422, and runs nothing', async () => {
    const { yoga, state, outcomes } = keyed();
    await post(yoga, CREATE, withKey('k1'));
    for (const other of [
      { ...CREATE, variables: { name: 'b' } },
      { ...CREATE, query: `${CREATE.query} # another text` },
      { ...CREATE, operationName: 'Create' },
    ]) {
      expect(await post(yoga, other, withKey('k1'))).toMatchObject({
        status: 422,
        body: { errors: [{ extensions: { code: 'IDEMPOTENCY_KEY_REUSED' } }] },
      });
    }
    expect(state.writes).toBe(1);
    expect(outcomes).toEqual(['stored', 'reused', 'reused', 'reused']);
  });

  it('refuses the key while its first request runs, 409 with Retry-After, and gives the first answer once it is over', async () => {
    const { yoga, state, held, outcomes } = keyed();
    const arrived = held();
    const first = post(yoga, CREATE, withKey('k1'));
    await arrived;
    const during = await post(yoga, CREATE, withKey('k1'));
    expect([during.status, during.headers['retry-after'], during.body]).toEqual([
      409,
      '1',
      {
        errors: [
          {
            message: 'The first request with this Idempotency-Key is still running: send it again after 1 s for its answer.',
            extensions: { code: 'IDEMPOTENCY_KEY_IN_USE', retryAfter: 1 },
          },
        ],
      },
    ]);
    state.release();
    expect((await first).body).toEqual({ data: { create: 1 } });
    expect((await post(yoga, CREATE, withKey('k1'))).body).toEqual({ data: { create: 1 } });
    expect(state.writes).toBe(1);
    expect(outcomes).toEqual(['conflict', 'stored', 'replayed']);
  });

  it('forgets the key when nothing reached the upstream: its retry runs', async () => {
    const { yoga, state, outcomes } = keyed();
    state.next = 'unsent';
    expect((await post(yoga, CREATE, withKey('k1'))).body).toMatchObject({ data: { create: null } });
    state.next = 'answers';
    expect((await post(yoga, CREATE, withKey('k1'))).body).toEqual({ data: { create: 1 } });
    expect(outcomes).toEqual(['released', 'stored']);
  });

  it('marks the key unknown when a write sent got no answer: its retry is refused, 409, and never sent', async () => {
    const { yoga, state, outcomes } = keyed();
    state.next = 'lost';
    await post(yoga, CREATE, withKey('k1'));
    state.next = 'answers';
    expect(await post(yoga, CREATE, withKey('k1'))).toMatchObject({
      status: 409,
      body: { errors: [{ extensions: { code: 'IDEMPOTENCY_OUTCOME_UNKNOWN' } }] },
    });
    expect(state.writes).toBe(1);
    expect(outcomes).toEqual(['unknown', 'unknown']);
  });

  it('keeps a key per caller: the same key of two callers is two keys', async () => {
    const { yoga, state } = keyed();
    await post(yoga, CREATE, withKey('k1'));
    expect((await post(yoga, CREATE, withKey('k1', { authorization: 'Bearer bob' }))).body).toEqual({ data: { create: 2 } });
    expect(state.writes).toBe(2);
  });

  it('ignores a key on a query, and any key on a request without a Bearer credential', async () => {
    const { yoga, state, outcomes } = keyed();
    await post(yoga, { query: '{ read }' }, withKey('k1'));
    await post(yoga, { query: '{ read }' }, withKey('k1'));
    await post(yoga, CREATE, withKey('k1', {}));
    await post(yoga, CREATE, withKey('k1', {}));
    expect(state.writes).toBe(2);
    expect(outcomes).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('refuses a malformed key, 400 before anything runs, whatever the operation, and a batch with a key', async () => {
    const { yoga, state } = keyed();
    const malformed = {
      status: 400,
      body: {
        errors: [
          {
            message: 'The Idempotency-Key header is not one key: send 1 to 255 printable ASCII characters, quoted ("…") or bare, once.',
            extensions: { code: 'BAD_REQUEST' },
          },
        ],
      },
    };
    expect(await post(yoga, CREATE, withKey('k1, k2'))).toMatchObject(malformed);
    expect(await post(yoga, { query: '{ read }' }, withKey(''))).toMatchObject(malformed);
    expect(await post(yoga, [CREATE], withKey('k1'))).toMatchObject({
      status: 400,
      body: {
        errors: [
          {
            message: 'An Idempotency-Key covers one operation: send a keyed mutation alone, not in a batch.',
            extensions: { code: 'BAD_REQUEST' },
          },
        ],
      },
    });
    expect(state.writes).toBe(0);
  });

  it('refuses a keyed mutation, 503, when the store cannot be asked; a mutation without a key runs', async () => {
    const unavailable: IdempotencyKeys = { claim: async () => ({ found: 'unavailable' }), settle: async () => {} };
    const { yoga, outcomes } = keyed(unavailable);
    const refused = await post(yoga, CREATE, withKey('k1'));
    expect([refused.status, refused.headers['retry-after'], refused.body.errors[0].extensions]).toEqual([
      503,
      '1',
      { code: 'IDEMPOTENCY_UNAVAILABLE', retryAfter: 1 },
    ]);
    expect((await post(yoga, CREATE, ALICE)).body).toEqual({ data: { create: 1 } });
    expect(outcomes).toEqual(['unavailable', undefined]);
  });

  it('costs one claim before the mutation runs and one settlement, which the answer does not wait for', async () => {
    const asked: string[] = [];
    const store = new InProcessIdempotencyKeys(1024 * 1024);
    const counted: IdempotencyKeys = {
      claim: (...args) => {
        asked.push('claim');
        return store.claim(...args);
      },
      // A settlement that never completes: the answer goes out all the same.
      settle: (...args) => {
        asked.push('settle');
        void store.settle(...args);
        return new Promise(() => {});
      },
    };
    const { yoga } = keyed(counted);
    await post(yoga, CREATE, ALICE);
    expect(asked).toEqual([]);
    expect((await post(yoga, CREATE, withKey('k1'))).body).toEqual({ data: { create: 2 } });
    expect(asked).toEqual(['claim', 'settle']);
    expect((await post(yoga, CREATE, withKey('k1'))).body).toEqual({ data: { create: 2 } });
    expect(asked).toEqual(['claim', 'settle', 'claim']);
  });
});
