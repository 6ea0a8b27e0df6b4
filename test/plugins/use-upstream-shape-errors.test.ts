import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { GraphQLError } from 'graphql';
import { createSchema } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { useUpstreamShapeErrors } from '../../src/plugins/use-upstream-shape-errors.js';
import { allParts, merged } from '../support/incremental.js';
import { post, postForParts, yogaWith } from '../support/yoga.js';

/** Root fields hand out records "from the upstream", some of which do not fit the schema. */
const schema = createSchema({
  typeDefs: /* GraphQL */ `
    type Query {
      record: Record
      records: [Record!]
      failing: String
    }
    type Record {
      label: String!
      name: String!
      tags: [String!]
      size: Int
      "Refused by a check of the gateway's, with a code."
      secret: String
    }
  `,
  resolvers: {
    Query: {
      record: () => ({ label: 'fine', name: null, tags: 'not a list', size: 'big' }),
      records: () => [
        { label: 'first', name: 'a' },
        { label: 'second', name: null },
      ],
      failing: () => {
        throw new Error('an internal detail');
      },
    },
    Record: {
      secret: () => {
        throw new GraphQLError('Not yours', { extensions: { code: 'FORBIDDEN' } });
      },
    },
  },
});

const badResponse = (field: string, path: Array<string | number>, column: number) => ({
  message: `The upstream service sent a response the gateway cannot read: the record does not fit field "${field}".`,
  locations: [{ line: 1, column }],
  path,
  extensions: { code: 'UPSTREAM_BAD_RESPONSE' },
});

describe('useUpstreamShapeErrors', () => {
  const yoga = yogaWith([useUpstreamShapeErrors()], { schema });

  it('names a null in a non-null field of a record as UPSTREAM_BAD_RESPONSE', async () => {
    const answer = await post(yoga, { query: '{ record { label name } }' });
    expect([answer.status, answer.body]).toEqual([
      200,
      { data: { record: null }, errors: [badResponse('record.name', ['record', 'name'], 18)] },
    ]);
  });

  it('starts from an error Yoga masks, which tells the caller nothing', async () => {
    const answer = await post(yogaWith([], { schema }), { query: '{ record { label name } }' });
    expect(answer.body.errors).toEqual([
      {
        message: 'Unexpected error.',
        locations: [{ line: 1, column: 18 }],
        path: ['record', 'name'],
        extensions: { code: 'INTERNAL_SERVER_ERROR' },
      },
    ]);
  });

  it('names a value of the wrong type, a scalar or a list, the same way', async () => {
    const answer = await post(yoga, { query: '{ record { label tags size } }' });
    expect(answer.body).toEqual({
      data: { record: { label: 'fine', tags: null, size: null } },
      errors: [badResponse('record.tags', ['record', 'tags'], 18), badResponse('record.size', ['record', 'size'], 23)],
    });
  });

  it('names the field of a record in a list without its index', async () => {
    const answer = await post(yoga, { query: '{ records { label name } }' });
    expect(answer.body).toEqual({ data: { records: null }, errors: [badResponse('records.name', ['records', 1, 'name'], 19)] });
  });

  it("leaves a root field's error, and an error that carries a code, as they are", async () => {
    const answer = await post(yoga, { query: '{ failing records { secret } }' });
    expect(answer.body).toEqual({
      data: { failing: null, records: [{ secret: null }, { secret: null }] },
      errors: [
        {
          message: 'Unexpected error.',
          locations: [{ line: 1, column: 3 }],
          path: ['failing'],
          extensions: { code: 'INTERNAL_SERVER_ERROR' },
        },
        ...[0, 1].map((index) => ({
          message: 'Not yours',
          locations: [{ line: 1, column: 21 }],
          path: ['records', index, 'secret'],
          extensions: { code: 'FORBIDDEN' },
        })),
      ],
    });
  });

  it('names a record that does not fit in a later part of an answer in parts (@stream) too', async () => {
    const streaming = yogaWith([useDeferStream(), useUpstreamShapeErrors()], { schema });
    const response = await postForParts(streaming, { query: '{ records @stream(initialCount: 1) { label name } }' });
    expect(merged(await allParts(response))).toEqual({
      data: { records: [{ label: 'first', name: 'a' }] },
      errors: [badResponse('records.name', ['records', 1, 'name'], 44)],
    });
  });
});
