import { GraphQLID, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLScalarType, GraphQLSchema } from 'graphql';
import { beforeEach, describe, expect, it } from 'vitest';
import { settingsWith } from '../../src/config/settings.js';
import { useUpstreamBudget } from '../../src/plugins/use-upstream-budget.js';
import { type RepresentationCount, RequestBudget, type UpstreamCallEstimate } from '../../src/upstream/budget.js';
import { answerTo, ENDPOINT, post, send, yogaWith } from '../support/yoga.js';

/** The root fields whose resolvers ran: each stands for upstream requests. */
const ran: string[] = [];
const Item = new GraphQLObjectType({ name: 'Item', fields: { id: { type: new GraphQLNonNull(GraphQLID) } } });
/** A list pages five records per upstream request; a read by id is one request (no estimate). */
const perPage: UpstreamCallEstimate = ({ first }) => Math.ceil((first as number) / 5);
/** Any JSON value, as Federation's `_Any`. */
const Any = new GraphQLScalarType({ name: 'Any' });
const representationCount: RepresentationCount = ({ representations }) => (representations as unknown[]).length;
const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: 'Query',
    fields: {
      items: {
        type: new GraphQLList(Item),
        args: { first: { type: GraphQLInt, defaultValue: 10 } },
        extensions: { upstreamCalls: perPage },
        resolve: () => {
          ran.push('items');
          return [{ id: '1' }];
        },
      },
      item: {
        type: Item,
        args: { id: { type: new GraphQLNonNull(GraphQLID) } },
        resolve: (_, { id }) => {
          ran.push('item');
          return { id };
        },
      },
      entities: {
        type: new GraphQLList(Item),
        args: { representations: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(Any))) } },
        extensions: { representations: representationCount },
        resolve: (_, { representations }) => {
          ran.push('entities');
          return (representations as unknown[]).map((_representation, i) => ({ id: String(i) }));
        },
      },
    },
  }),
  mutation: new GraphQLObjectType({
    name: 'Mutation',
    fields: {
      touch: {
        type: Item,
        args: { id: { type: new GraphQLNonNull(GraphQLID) } },
        resolve: (_, { id }) => {
          ran.push('touch');
          return { id };
        },
      },
    },
  }),
});

const MAX = 4;
/** The part of the gateway's context the plugin reads: one budget per HTTP request, shared by a batch. */
const budgets = new WeakMap<Request, RequestBudget>();
const context = ({ request }: { request: Request }) => {
  let budget = budgets.get(request);
  if (!budget) {
    budget = new RequestBudget(settingsWith({ maxUpstreamCalls: MAX }));
    budgets.set(request, budget);
  }
  return { caller: { budget } };
};

const overBudget = (needed: number) => ({
  status: 400,
  body: {
    errors: [
      {
        message: `This operation would need ${needed} upstream requests, more than the 4 upstream requests allowed (MAX_UPSTREAM_CALLS). Ask for fewer records or fewer aliased fields per request.`,
        extensions: { code: 'LIMIT_EXCEEDED', limit: 'upstreamCalls', max: MAX },
      },
    ],
  },
});

/** n aliased copies of `field`. */
const copies = (n: number, field: (i: number) => string) => Array.from({ length: n }, (_, i) => `f${i}: ${field(i)}`).join(' ');

describe('useUpstreamBudget', () => {
  const yoga = yogaWith([useUpstreamBudget()], { schema, context, batching: true });
  const answer = (query: string, variables?: Record<string, unknown>) => answerTo(yoga, { query, variables });
  beforeEach(() => {
    ran.length = 0;
  });

  it("runs an operation within the budget, summing the root fields' estimates for their arguments", async () => {
    expect(await answer('{ items(first: 20) { id } }')).toEqual({ status: 200, body: { data: { items: [{ id: '1' }] } } });
    expect(ran).toEqual(['items']);
  });

  it('refuses an operation over the budget before any resolver runs', async () => {
    expect(await answer('{ items(first: 25) { id } }')).toEqual(overBudget(5));
    expect(await answer('{ a: items(first: 15) { id } b: items { id } }')).toEqual(overBudget(5));
    expect(ran).toEqual([]);
  });

  it('counts a root field without an estimate as one request, and __typename as none', async () => {
    expect((await answer(`{ __typename ${copies(4, (i) => `item(id: "${i}") { id }`)} }`)).status).toBe(200);
    expect(await answer(`{ ${copies(5, (i) => `item(id: "${i}") { id }`)} }`)).toEqual(overBudget(5));
  });

  it('counts identical reads once, as the per-request DataLoader sends them once, defaults and variables applied', async () => {
    expect((await answer(`{ ${copies(5, () => 'item(id: "1") { id }')} }`)).status).toBe(200);
    expect(
      (await answer('query ($n: Int) { a: items { id } b: items(first: 10) { id } c: items(first: $n) { id } }', { n: 10 })).status,
    ).toBe(200);
  });

  it('counts every write, identical or not', async () => {
    expect((await answer(`mutation { ${copies(4, () => 'touch(id: "1") { id }')} }`)).status).toBe(200);
    expect(await answer(`mutation { ${copies(5, () => 'touch(id: "1") { id }')} }`)).toEqual(overBudget(5));
  });

  it('reads arguments from variables', async () => {
    expect(await answer('query ($n: Int) { items(first: $n) { id } }', { n: 30 })).toEqual(overBudget(6));
  });

  it('leaves out fields that @skip or @include leave out, and counts those in fragments', async () => {
    const query = 'query ($on: Boolean!) { items(first: 20) { id } item(id: "1") @include(if: $on) { id } }';
    expect((await answer(query, { on: false })).status).toBe(200);
    expect(await answer(query, { on: true })).toEqual(overBudget(5));
    expect((await answer('{ items(first: 20) { id } item(id: "1") @skip(if: true) { id } }')).status).toBe(200);
    expect(await answer('{ ...Reads } fragment Reads on Query { items(first: 20) { id } ... on Query { item(id: "1") { id } } }')).toEqual(
      overBudget(5),
    );
  });

  it('counts the operation that runs, not the others of its document', async () => {
    const query = 'query Small { items(first: 5) { id } } query Large { items(first: 50) { id } }';
    expect((await answerTo(yoga, { query, operationName: 'Small' })).status).toBe(200);
    expect(await answerTo(yoga, { query, operationName: 'Large' })).toEqual(overBudget(10));
  });

  it('leaves variables that do not fit to execution, which refuses them', async () => {
    const { status, body } = await answer('query ($n: Int!) { items(first: $n) { id } }', { n: 'many' });
    expect([status, body.errors[0].message]).toEqual([
      400,
      'Variable "$n" got invalid value "many"; Int cannot represent non-integer value: "many"',
    ]);
  });

  describe('entity representations', () => {
    // MAX upstream requests of the largest upstream page (25) can find 100 records at most.
    const ENTITIES = 'query ($r: [Any!]!) { entities(representations: $r) { id } }';
    const representations = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `r${i}` }));
    const tooMany = (count: number, left = '') => ({
      status: 400,
      body: {
        errors: [
          {
            message: `This operation asks for ${count} entity representations, more than the 100 that one request's upstream calls can find (MAX_UPSTREAM_CALLS × 25)${left}. Send fewer representations per request.`,
            extensions: { code: 'LIMIT_EXCEEDED', limit: 'representations', max: 100 },
          },
        ],
      },
    });

    it('runs as many as the upstream calls can find, and refuses one more before any resolver runs', async () => {
      expect((await answer(ENTITIES, { r: representations(100) })).status).toBe(200);
      expect(ran).toEqual(['entities']);
      ran.length = 0;
      expect(await answer(ENTITIES, { r: representations(101) })).toEqual(tooMany(101));
      expect(ran).toEqual([]);
    });

    it('sums them over aliases and the operations of a batch', async () => {
      expect(
        await answer('query ($r: [Any!]!) { a: entities(representations: $r) { id } b: entities(representations: $r) { id } }', {
          r: representations(60),
        }),
      ).toEqual(tooMany(120));
      const { body } = await post(yoga, [
        { query: ENTITIES, variables: { r: representations(60) } },
        { query: ENTITIES, variables: { r: representations(60) } },
      ]);
      expect(body[1]).toEqual(tooMany(60, ', of which 40 are left for this operation').body);
      expect(ran).toEqual(['entities']);
    });

    it('counts a representation JSON cannot write (nested thousands deep) without failing the request', async () => {
      // Written by hand, as JSON.stringify overflows on it too.
      const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
      const answered = await send(yoga, ENDPOINT, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"query":${JSON.stringify(ENTITIES)},"variables":{"r":[${deep}]}}`,
      });
      expect([answered.status, answered.body]).toEqual([200, { data: { entities: [{ id: '0' }] } }]);
    });
  });

  it('shares one budget between the operations of a batch, and starts afresh with the next request', async () => {
    const batch = [
      { query: '{ items(first: 15) { id } }' },
      { query: '{ items(first: 10) { id } }' },
      { query: '{ item(id: "1") { id } }' },
    ];
    const { body } = await post(yoga, batch);
    expect(body).toEqual([
      { data: { items: [{ id: '1' }] } },
      {
        errors: [
          {
            message:
              'This operation would need 2 upstream requests, more than the 1 left of the 4 upstream requests allowed per HTTP request (MAX_UPSTREAM_CALLS). Ask for fewer records or fewer aliased fields per request.',
            extensions: { code: 'LIMIT_EXCEEDED', limit: 'upstreamCalls', max: MAX },
          },
        ],
      },
      { data: { item: { id: '1' } } },
    ]);
    expect(ran).toEqual(['items', 'item']);
    expect((await answer('{ items(first: 20) { id } }')).status).toBe(200);
  });
});
