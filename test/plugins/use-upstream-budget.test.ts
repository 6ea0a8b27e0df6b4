import { GraphQLID, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLSchema } from 'graphql';
import { beforeEach, describe, expect, it } from 'vitest';
import { settingsWith } from '../../src/config/settings.js';
import { useUpstreamBudget } from '../../src/plugins/use-upstream-budget.js';
import { RequestBudget, type UpstreamCallEstimate } from '../../src/upstream/budget.js';
import { answerTo, post, yogaWith } from '../support/yoga.js';

/** The root fields whose resolvers ran: each stands for upstream requests. */
const ran: string[] = [];
const Item = new GraphQLObjectType({ name: 'Item', fields: { id: { type: new GraphQLNonNull(GraphQLID) } } });
/** A list pages five records per upstream request; a read by id is one request (no estimate). */
const perPage: UpstreamCallEstimate = ({ first }) => Math.ceil((first as number) / 5);
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
