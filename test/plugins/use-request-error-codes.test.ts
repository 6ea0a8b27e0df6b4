import { describe, expect, it } from 'vitest';
import { useRequestErrorCodes } from '../../src/plugins/use-request-error-codes.js';
import { ENDPOINT, post, send, yogaWith } from '../support/yoga.js';

describe('useRequestErrorCodes', () => {
  const yoga = yogaWith([useRequestErrorCodes()]);

  it('gives a variable that does not fit its type BAD_USER_INPUT, answered 400', async () => {
    const answer = await post(yoga, { query: 'query ($n: Int!) { text(length: $n) }', variables: { n: 'many' } });
    expect([answer.status, answer.body]).toEqual([
      400,
      {
        errors: [
          {
            message: 'Variable "$n" got invalid value "many"; Int cannot represent non-integer value: "many"',
            locations: [{ line: 1, column: 8 }],
            extensions: { code: 'BAD_USER_INPUT' },
          },
        ],
      },
    ]);
  });

  it('gives a missing required variable BAD_USER_INPUT', async () => {
    const answer = await post(yoga, { query: 'query ($n: Int!) { text(length: $n) }' });
    expect(answer.body.errors).toEqual([
      {
        message: 'Variable "$n" of required type "Int!" was not provided.',
        locations: [{ line: 1, column: 8 }],
        extensions: { code: 'BAD_USER_INPUT' },
      },
    ]);
  });

  it('replaces the echo of a body that is not JSON, and keeps it a 400 under Accept: application/json', async () => {
    for (const accept of ['application/graphql-response+json', 'application/json']) {
      const answer = await send(yoga, ENDPOINT, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept },
        body: '{"query": "secret-token',
      });
      expect([accept, answer.status, answer.body]).toEqual([
        accept,
        400,
        {
          errors: [
            {
              message: 'POST body sent invalid JSON.',
              extensions: { code: 'BAD_REQUEST', originalError: { name: 'SyntaxError', message: 'The body is not valid JSON.' } },
            },
          ],
        },
      ]);
    }
  });

  it("keeps Yoga's codes of a document that does not parse or validate", async () => {
    expect((await post(yoga, { query: '{ hello' })).body.errors[0].extensions).toEqual({ code: 'GRAPHQL_PARSE_FAILED' });
    expect((await post(yoga, { query: '{ nothing }' })).body.errors[0].extensions).toEqual({ code: 'GRAPHQL_VALIDATION_FAILED' });
  });

  it('leaves the errors of fields that ran as they are, code or none', async () => {
    const unmasked = yogaWith([useRequestErrorCodes()], { maskedErrors: false });
    const answer = await post(unmasked, { query: '{ hello failure }' });
    expect([answer.status, answer.body]).toEqual([
      200,
      {
        data: { hello: 'Hello world', failure: null },
        errors: [{ message: 'an internal detail', locations: [{ line: 1, column: 9 }], path: ['failure'] }],
      },
    ]);
  });

  it('codes the errors of every operation of a batch', async () => {
    const batching = yogaWith([useRequestErrorCodes()], { batching: true });
    const answer = await post(batching, [
      { query: '{ hello }' },
      { query: 'query ($n: Int!) { text(length: $n) }', variables: { n: null } },
    ]);
    expect(answer.body).toEqual([
      { data: { hello: 'Hello world' } },
      {
        errors: [
          {
            message: 'Variable "$n" of non-null type "Int!" must not be null.',
            locations: [{ line: 1, column: 8 }],
            extensions: { code: 'BAD_USER_INPUT' },
          },
        ],
      },
    ]);
  });
});
