import { describe, expect, it } from 'vitest';
import { useHiddenSuggestions } from '../../src/plugins/use-hidden-suggestions.js';
import { post, yogaWith } from '../support/yoga.js';

/** The messages of an answer's errors. */
const messages = async (answer: ReturnType<typeof post>) =>
  ((await answer).body.errors as Array<{ message: string }>).map((e) => e.message);

describe('useHiddenSuggestions', () => {
  const yoga = yogaWith([useHiddenSuggestions()]);

  it('starts from graphql-js, which suggests the names a caller nearly typed', async () => {
    expect(await messages(post(yogaWith([]), { query: '{ helo }' }))).toEqual([
      'Cannot query field "helo" on type "Query". Did you mean "hello"?',
    ]);
  });

  it('hides the suggestion of a field, an argument and an enum value while validating', async () => {
    expect(await messages(post(yoga, { query: '{ helo hello(nam: "x") role(role: ADMN) }' }))).toEqual([
      'Cannot query field "helo" on type "Query". [Suggestion hidden]',
      'Unknown argument "nam" on field "Query.hello". [Suggestion hidden]',
      'Value "ADMN" does not exist in "Role" enum. [Suggestion hidden]',
    ]);
  });

  it('hides the suggestion of a type', async () => {
    expect(await messages(post(yoga, { query: 'query ($r: Rol) { role(role: $r) }' }))).toEqual([
      'Unknown type "Rol". [Suggestion hidden]',
    ]);
  });

  it('hides the suggestion of a variable value while coercing it, keeping the rest of the answer', async () => {
    const answer = await post(yoga, { query: 'query ($r: Role) { role(role: $r) }', variables: { r: 'ADMN' } });
    expect([answer.status, answer.body]).toEqual([
      400,
      {
        errors: [
          {
            message: 'Variable "$r" got invalid value "ADMN"; Value "ADMN" does not exist in "Role" enum. [Suggestion hidden]',
            locations: [{ line: 1, column: 8 }],
          },
        ],
      },
    ]);
  });

  it('leaves a message without a suggestion as it is', async () => {
    expect(await messages(post(yoga, { query: '{ nothing }' }))).toEqual(['Cannot query field "nothing" on type "Query".']);
  });

  it('hides the suggestions of every operation of a batch', async () => {
    const batching = yogaWith([useHiddenSuggestions()], { batching: true });
    const answer = await post(batching, [{ query: '{ helo }' }, { query: '{ hello }' }, { query: '{ hello(nam: "x") }' }]);
    expect(answer.body).toEqual([
      {
        errors: [
          {
            message: 'Cannot query field "helo" on type "Query". [Suggestion hidden]',
            locations: [{ line: 1, column: 3 }],
            extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
          },
        ],
      },
      { data: { hello: 'Hello world' } },
      {
        errors: [
          {
            message: 'Unknown argument "nam" on field "Query.hello". [Suggestion hidden]',
            locations: [{ line: 1, column: 9 }],
            extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
          },
        ],
      },
    ]);
  });
});
