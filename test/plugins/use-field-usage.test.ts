import {
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import type { RequestSummary } from '../../src/observability/request-summary.js';
import { recordOf } from '../../src/operation-record.js';
import { useFieldUsage } from '../../src/plugins/use-field-usage.js';
import { useRequestSummary } from '../../src/plugins/use-request-summary.js';
import { useResponseCache } from '../../src/plugins/use-response-cache.js';
import { useUpstreamHeaders } from '../../src/plugins/use-upstream-headers.js';
import { deprecated } from '../../src/schema/deprecation.js';
import { CacheLookups } from '../../src/state/cache-lookups.js';
import { InProcessResponseCache } from '../../src/state/response-cache.js';
import { recordCalls } from '../support/summaries.js';
import { finishing, post, yogaWith } from '../support/yoga.js';

/** Two deprecations, declared as the gateway's schema declares them: `label` is the later to go. */
const LABEL = { reason: 'Use `name` instead.', since: '2026-09-30', sunset: '2027-03-31', link: 'https://docs.example.com/changes#labels' };
const TITLE = { reason: 'Use `name` instead.', since: '2026-06-01', sunset: '2027-01-31', link: 'https://docs.example.com/changes#titles' };
const OLDEST = { reason: 'Use `FIRST` instead.', since: '2026-03-01', sunset: '2027-03-31' };

const Order = new GraphQLEnumType({
  name: 'Order',
  values: { FIRST: { value: 'FIRST' }, OLDEST: { value: 'OLDEST', ...deprecated(OLDEST) } },
});
const Filter = new GraphQLInputObjectType({
  name: 'Filter',
  fields: { name: { type: GraphQLString }, order: { type: Order } },
});
/** A schema built in code, as Pothos builds the gateway's: its deprecations carry their declared dates. */
const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: 'Query',
    fields: {
      name: { type: GraphQLString, resolve: () => 'n' },
      label: { type: GraphQLString, resolve: () => 'l', ...deprecated(LABEL) },
      title: { type: GraphQLString, resolve: () => 't', ...deprecated(TITLE) },
      keys: {
        type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLString))),
        args: { filter: { type: Filter } },
        resolve: (_, { filter }: { filter?: { order?: string } }) => [filter?.order ?? 'none'],
      },
    },
  }),
});

/** A Yoga with useFieldUsage on that schema, answers' headers written where every answer is finished, and the summaries it gives. */
function served({ cached = false, upstreamHeaders = {} as Record<string, string>, returnHeaders = [] as string[] } = {}) {
  const summaries: RequestSummary[] = [];
  const yoga = yogaWith(
    [
      useUpstreamHeaders({ returnHeaders }),
      ...(cached
        ? [useResponseCache({ lookups: new CacheLookups(new InProcessResponseCache(1024 * 1024)), cacheTtlMs: 60_000, returnHeaders })]
        : []),
      useFieldUsage(),
      useRequestSummary({ onSummary: (summary) => summaries.push(summary) }),
      finishing({ returnHeaders }),
    ],
    {
      schema,
      // Each operation makes one upstream call that accepts the caller's token, with these answer headers.
      context: (context: object) => {
        recordCalls(recordOf(context), [200], { headers: upstreamHeaders });
        return {};
      },
    },
  );
  return { yoga, summaries };
}

const ALICE = { authorization: 'Bearer alice' };
const NOTICES = ['deprecation', 'sunset', 'link'];
const noticesOf = (headers: Record<string, string>) =>
  Object.fromEntries(NOTICES.flatMap((name) => (name in headers ? [[name, headers[name]]] : [])));

describe('useFieldUsage', () => {
  it('puts on the record what the operation run selects and passes, not what the other operations of its document do', async () => {
    const { yoga, summaries } = served();
    const query = 'query A { name ...More } query B { title } fragment More on Query { keys(filter: { name: "x" }) }';
    expect((await post(yoga, { query, operationName: 'A' })).body).toEqual({ data: { name: 'n', keys: ['none'] } });
    expect(summaries.map(({ coordinates, deprecated }) => ({ coordinates, deprecated }))).toEqual([
      { coordinates: ['Filter.name', 'Query.keys', 'Query.keys(filter:)', 'Query.name'], deprecated: undefined },
    ]);
  });

  it('adds the enum values and input fields the variables send, and what of them is deprecated', async () => {
    const { yoga, summaries } = served();
    const query = 'query Keys($filter: Filter) { keys(filter: $filter) }';
    const answer = await post(yoga, { query, variables: { filter: { order: 'OLDEST' } } });
    expect(answer.body).toEqual({
      data: { keys: ['OLDEST'] },
      extensions: { deprecations: [{ coordinate: 'Order.OLDEST', ...OLDEST }] },
    });
    expect(noticesOf(answer.headers)).toEqual({ deprecation: '@1772323200', sunset: 'Wed, 31 Mar 2027 00:00:00 GMT' });
    expect(summaries.map(({ coordinates, deprecated }) => ({ coordinates, deprecated }))).toEqual([
      { coordinates: ['Filter.order', 'Order.OLDEST', 'Query.keys', 'Query.keys(filter:)'], deprecated: ['Order.OLDEST'] },
    ]);
  });

  it('answers an operation that uses deprecated fields with Deprecation, Sunset and Link (the earliest dates, every link) and extensions', async () => {
    const { yoga } = served();
    const answer = await post(yoga, { query: '{ label title name }' });
    expect(answer.body).toEqual({
      data: { label: 'l', title: 't', name: 'n' },
      extensions: {
        deprecations: [
          { coordinate: 'Query.label', ...LABEL },
          { coordinate: 'Query.title', ...TITLE },
        ],
      },
    });
    expect(noticesOf(answer.headers)).toEqual({
      deprecation: '@1780272000',
      sunset: 'Sun, 31 Jan 2027 00:00:00 GMT',
      link: '<https://docs.example.com/changes#labels>; rel="deprecation", <https://docs.example.com/changes#titles>; rel="deprecation"',
    });
  });

  it('adds nothing to an answer that uses nothing deprecated', async () => {
    const { yoga } = served();
    const answer = await post(yoga, { query: '{ name }' });
    expect([answer.body, noticesOf(answer.headers)]).toEqual([{ data: { name: 'n' } }, {}]);
  });

  it('merges its notices with the REST API’s own when RETURN_HEADERS lists them, and gives its own when it does not', async () => {
    const upstreamHeaders = { deprecation: '@1700000000', link: '<https://api.example.com/v3>; rel="successor-version"' };
    const listed = served({ upstreamHeaders, returnHeaders: ['deprecation', 'link'] });
    expect(noticesOf((await post(listed.yoga, { query: '{ title }' })).headers)).toEqual({
      deprecation: '@1700000000',
      sunset: 'Sun, 31 Jan 2027 00:00:00 GMT',
      link: '<https://api.example.com/v3>; rel="successor-version", <https://docs.example.com/changes#titles>; rel="deprecation"',
    });
    const unlisted = served({ upstreamHeaders });
    expect(noticesOf((await post(unlisted.yoga, { query: '{ title }' })).headers)).toEqual({
      deprecation: '@1780272000',
      sunset: 'Sun, 31 Jan 2027 00:00:00 GMT',
      link: '<https://docs.example.com/changes#titles>; rel="deprecation"',
    });
  });

  it('gives a read cache hit the notices and extensions its answer went out with, though it runs nothing', async () => {
    const { yoga, summaries } = served({ cached: true });
    const first = await post(yoga, { query: '{ title }' }, ALICE);
    const hit = await post(yoga, { query: '{ title }' }, ALICE);
    expect([hit.body, noticesOf(hit.headers)]).toEqual([first.body, noticesOf(first.headers)]);
    expect(noticesOf(hit.headers).deprecation).toBe('@1780272000');
    expect(summaries.map(({ cache, deprecated }) => ({ cache, deprecated }))).toEqual([
      { cache: 'miss', deprecated: ['Query.title'] },
      { cache: 'hit', deprecated: undefined },
    ]);
  });
});
