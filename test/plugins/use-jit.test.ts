import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { describe, expect, it } from 'vitest';
import { useJit } from '../../src/plugins/use-jit.js';
import { allParts } from '../support/incremental.js';
import { post, postForParts, yogaWith } from '../support/yoga.js';

describe('useJit', () => {
  const yoga = yogaWith([useJit()]);

  it('runs queries and mutations through the compiled function', async () => {
    expect((await post(yoga, { query: '{ hello(name: "jit") text(length: 3) node { child { name } } }' })).body).toEqual({
      data: { hello: 'Hello jit', text: 'xxx', node: { child: { name: 'leaf' } } },
    });
    expect((await post(yoga, { query: 'mutation { rename(name: "new") }' })).body).toEqual({ data: { rename: 'new' } });
  });

  it("keeps a field error's locations, path and code, and masks it as graphql-js' errors are", async () => {
    const answer = await post(yoga, { query: '{ hello failure }' });
    expect([answer.status, answer.body]).toEqual([
      200,
      {
        data: { hello: 'Hello world', failure: null },
        errors: [
          {
            message: 'Unexpected error.',
            locations: [{ line: 1, column: 9 }],
            path: ['failure'],
            extensions: { code: 'INTERNAL_SERVER_ERROR' },
          },
        ],
      },
    ]);
  });

  it('places errors on the line graphql-js counts, whatever the line breaks', async () => {
    for (const query of ['\r\n{\r\n  hello\r\n  failure\r\n}', '\n{\n  hello\n  failure\n}', '\r{\r  hello\r  failure\r}']) {
      expect([query, (await post(yoga, { query })).body.errors[0].locations]).toEqual([query, [{ line: 4, column: 3 }]]);
    }
  });

  it('answers a variable that does not fit its type 400, at the variable', async () => {
    const answer = await post(yoga, { query: 'query ($n: Int!) { text(length: $n) }', variables: { n: 'many' } });
    expect([answer.status, answer.body]).toEqual([
      400,
      {
        errors: [
          {
            // graphql-jit's own wording, which says the compiled function ran.
            message: 'Variable "$n" got invalid value "many"; Expected type Int; Int cannot represent non-integer value: "many"',
            locations: [{ line: 1, column: 8 }],
          },
        ],
      },
    ]);
  });

  it('fills in the default of an omitted non-null variable, as the spec says', async () => {
    expect((await post(yoga, { query: 'query ($n: Int! = 2) { text(length: $n) }' })).body).toEqual({ data: { text: 'xx' } });
    expect((await post(yoga, { query: 'query ($n: Int! = 2) { text(length: $n) }', variables: { n: 4 } })).body).toEqual({
      data: { text: 'xxxx' },
    });
  });

  it('runs the named operation of a document that holds several, whichever ran first', async () => {
    const query = 'query A { hello } query B { text(length: 2) }';
    expect((await post(yoga, { query, operationName: 'A' })).body).toEqual({ data: { hello: 'Hello world' } });
    expect((await post(yoga, { query, operationName: 'B' })).body).toEqual({ data: { text: 'xx' } });
    expect((await post(yoga, { query, operationName: 'A' })).body).toEqual({ data: { hello: 'Hello world' } });
  });

  it('refuses an operation type the schema lacks while validating', async () => {
    const answer = await post(yoga, { query: 'subscription { hello }' });
    expect([answer.status, answer.body]).toEqual([
      400,
      {
        errors: [
          {
            message: 'This schema has no subscription operations.',
            locations: [{ line: 1, column: 1 }],
            extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
          },
        ],
      },
    ]);
  });

  it("leaves an operation with @defer or @stream to Yoga's executor, which answers it in parts; the others stay compiled", async () => {
    const streaming = yogaWith([useDeferStream(), useJit()]);
    const response = await postForParts(streaming, { query: '{ hello ... @defer { text(length: 2) } }' });
    expect(await allParts(response)).toEqual([
      { data: { hello: 'Hello world' }, hasNext: true },
      { incremental: [{ data: { text: 'xx' }, path: [] }], hasNext: false },
    ]);
    // graphql-jit's own wording: the document without the directives still runs compiled.
    const plain = await post(streaming, { query: 'query ($n: Int!) { text(length: $n) }', variables: { n: 'many' } });
    expect(plain.body.errors[0].message).toBe(
      'Variable "$n" got invalid value "many"; Expected type Int; Int cannot represent non-integer value: "many"',
    );
  });
});
