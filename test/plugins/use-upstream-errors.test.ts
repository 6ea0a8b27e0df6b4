import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { GraphQLError } from 'graphql';
import { createSchema } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { useJit } from '../../src/plugins/use-jit.js';
import { useUpstreamErrors } from '../../src/plugins/use-upstream-errors.js';
import { upstreamFailure, upstreamUnavailable } from '../../src/upstream/errors.js';
import { allParts, merged } from '../support/incremental.js';
import { post, postForParts, yogaWith } from '../support/yoga.js';

/** Root fields that fail as the upstream client makes them fail. */
const schema = createSchema({
  typeDefs: /* GraphQL */ `
    type Query {
      "One 422 answer holding three error objects."
      rejected: String
      "An upstream that could not be reached: one error."
      unreachable: String
      "A GraphQL error of another origin."
      other: String
      ok: String
      "Its second item fails as rejected does."
      list: [String]
    }
  `,
  resolvers: {
    Query: {
      rejected: () => {
        throw upstreamFailure({
          status: 422,
          errors: [
            { message: 'Name is taken', field: 'name' },
            { message: 'Slug is invalid', code: 'invalid', field: 'slug' },
            { detail: 'Too many tags' },
          ],
        });
      },
      unreachable: () => {
        throw upstreamUnavailable();
      },
      other: () => {
        throw new GraphQLError('Not from the upstream', { extensions: { code: 'FORBIDDEN' } });
      },
      ok: () => 'ok',
      list: () => [
        'first',
        Promise.reject(
          upstreamFailure({
            status: 422,
            errors: [
              { message: 'Name is taken', field: 'name' },
              { message: 'Slug is invalid', code: 'invalid', field: 'slug' },
              { detail: 'Too many tags' },
            ],
          }),
        ),
      ],
    },
  },
});

const rejected = (line: number, column: number) =>
  [
    { message: 'Name is taken', error: { message: 'Name is taken', field: 'name' } },
    { message: 'Slug is invalid', error: { message: 'Slug is invalid', code: 'invalid', field: 'slug' } },
    { message: 'Too many tags', error: { message: 'Too many tags' } },
  ].map(({ message, error }) => ({
    message,
    locations: [{ line, column }],
    path: ['rejected'],
    extensions: { code: 'BAD_USER_INPUT', upstream: { status: 422, error } },
  }));

describe('useUpstreamErrors', () => {
  it('puts every error object of one upstream answer into the response, in order, at the same place', async () => {
    const answer = await post(yogaWith([useUpstreamErrors()], { schema }), { query: '{ ok rejected }' });
    expect([answer.status, answer.body]).toEqual([200, { data: { ok: 'ok', rejected: null }, errors: rejected(1, 6) }]);
  });

  it('starts from one error per field, the first object alone', async () => {
    const answer = await post(yogaWith([], { schema }), { query: '{ ok rejected }' });
    expect(answer.body.errors).toEqual(rejected(1, 6).slice(0, 1));
  });

  it('leaves a failure of one error, and the errors of other origins, as they are', async () => {
    const answer = await post(yogaWith([useUpstreamErrors()], { schema }), { query: '{ unreachable other }' });
    expect(answer.body).toEqual({
      data: { unreachable: null, other: null },
      errors: [
        {
          message: 'The upstream service could not be reached.',
          locations: [{ line: 1, column: 3 }],
          path: ['unreachable'],
          extensions: { code: 'UPSTREAM_UNAVAILABLE' },
        },
        { message: 'Not from the upstream', locations: [{ line: 1, column: 15 }], path: ['other'], extensions: { code: 'FORBIDDEN' } },
      ],
    });
  });

  it("places the further errors where graphql-jit's first one is", async () => {
    const answer = await post(yogaWith([useJit(), useUpstreamErrors()], { schema }), { query: '{\n  ok\n  rejected\n}' });
    expect(answer.body.errors).toEqual(rejected(3, 3));
  });

  it('puts them into a later part of an answer in parts (@stream) too, at the item that failed', async () => {
    const streaming = yogaWith([useDeferStream(), useUpstreamErrors()], { schema });
    const response = await postForParts(streaming, { query: '{ list @stream(initialCount: 1) }' });
    expect(merged(await allParts(response))).toEqual({
      data: { list: ['first', null] },
      errors: rejected(1, 3).map((error) => ({ ...error, path: ['list', 1] })),
    });
  });
});
