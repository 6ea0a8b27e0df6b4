import { type FieldNode, Kind, type NameNode, type OperationDefinitionNode, parse, print } from 'graphql';
import { describe, expect, it } from 'vitest';
import { FULLEST_INTROSPECTION_QUERY, useLimits } from '../../src/plugins/use-limits.js';
import { answerTo, refused, yogaWith } from '../support/yoga.js';

/** `{ node { child { … name } } }`, `depth` fields deep. */
const nested = (depth: number) => {
  let selection = 'name';
  for (let level = 2; level < depth; level++) selection = `child { ${selection} }`;
  return `{ node { ${selection} } }`;
};
const aliased = (count: number) => `{ ${Array.from({ length: count }, (_, i) => `a${i}: hello`).join(' ')} }`;
const directives = (count: number) => `{ ${'hello @include(if: true) '.repeat(count)}}`;
/** `1000 + extra` lexical tokens: 166 fields of six tokens, two of one, and the braces. */
const tokens1000 = (extra: number) => `{ ${'hello(name: "x") '.repeat(166)}__typename __typename ${'__typename '.repeat(extra)}}`;
/** Spreads of one fragment of a hundred scalars: 58 cost 19 925, 59 cost 20 268.5. */
const spreads = (count: number) => `{ node { ${'...Names '.repeat(count)}} } fragment Names on Node { ${'name '.repeat(100)}}`;

describe('useLimits', () => {
  describe('with each limit set', () => {
    it.each([
      ['maxDepth', { maxDepth: 2 }, nested(2), nested(3), refused('depth', 2, 'Query depth limit of 2 exceeded, found 3.')],
      ['maxAliases', { maxAliases: 2 }, aliased(2), aliased(3), refused('aliases', 2, 'Aliases limit of 2 exceeded, found 3.')],
      ['maxTokens', { maxTokens: 3 }, '{ hello }', '{ hello(name: "x") }', refused('tokens', 3, 'Token limit of 3 exceeded.')],
      [
        'maxDirectives',
        { maxDirectives: 2 },
        directives(2),
        directives(3),
        refused('directives', 2, 'Directives limit of 2 exceeded, found 3.'),
      ],
      [
        'maxCost',
        { maxCost: 8 },
        '{ node { name name name name } }',
        '{ node { name name name name name } }',
        refused('cost', 8, 'Query Cost limit of 8 exceeded, found 9.5.'),
      ],
    ])('%s: runs an operation at the limit and refuses one past it, naming the limit', async (_, options, atLimit, pastLimit, expected) => {
      const yoga = yogaWith([useLimits(options)]);
      expect((await answerTo(yoga, { query: atLimit })).status).toBe(200);
      expect(await answerTo(yoga, { query: pastLimit })).toEqual(expected);
    });
  });

  describe('by default', () => {
    const yoga = yogaWith([useLimits()]);

    it.each([
      ['depth 8', nested(8), nested(9), refused('depth', 8, 'Query depth limit of 8 exceeded, found 9.')],
      ['15 aliases', aliased(15), aliased(16), refused('aliases', 15, 'Aliases limit of 15 exceeded, found 16.')],
      ['1000 tokens', tokens1000(0), tokens1000(1), refused('tokens', 1000, 'Token limit of 1000 exceeded.')],
      ['10 directives', directives(10), directives(11), refused('directives', 10, 'Directives limit of 10 exceeded, found 11.')],
      ['cost 20000', spreads(58), spreads(59), refused('cost', 20000, 'Query Cost limit of 20000 exceeded, found 20268.5.')],
    ])('allows %s and refuses one more', async (_, atLimit, pastLimit, expected) => {
      expect((await answerTo(yoga, { query: atLimit })).status).toBe(200);
      expect(await answerTo(yoga, { query: pastLimit })).toEqual(expected);
    });
  });

  describe('introspection', () => {
    /** The fullest standard introspection query, its `__schema` field `copies` times under aliases. */
    const introspection = (copies: number) => {
      const document = parse(FULLEST_INTROSPECTION_QUERY);
      const [operation, ...fragments] = document.definitions as [OperationDefinitionNode, ...typeof document.definitions];
      const schemaField = operation.selectionSet.selections[0] as FieldNode;
      const alias = (i: number): NameNode => ({ kind: Kind.NAME, value: `copy${i}` });
      const selections = Array.from({ length: copies }, (_, i) => ({ ...schemaField, alias: alias(i) }));
      return print({ ...document, definitions: [{ ...operation, selectionSet: { ...operation.selectionSet, selections } }, ...fragments] });
    };
    /** Twice the cost of the fullest introspection query of the tiny schema (87 498). */
    const ceiling = 174_996;

    it("runs any tool's introspection, whatever maxCost", async () => {
      const strict = yogaWith([useLimits({ maxCost: 1 })]);
      const { status, body } = await answerTo(strict, { query: introspection(1) });
      expect([status, body.data.copy0.queryType]).toEqual([200, { name: 'Query', kind: 'OBJECT' }]);
      expect((await answerTo(strict, { query: introspection(2) })).status).toBe(200);
    });

    it('refuses more than twice the fullest introspection query', async () => {
      const { status, body } = await answerTo(yogaWith([useLimits({ maxCost: 1 })]), { query: introspection(3) });
      expect(status).toBe(400);
      expect(body.errors).toEqual([
        {
          message: expect.stringMatching(new RegExp(`^Query Cost limit of ${ceiling} exceeded, found [0-9.]+\\.$`)),
          extensions: { code: 'LIMIT_EXCEEDED', limit: 'introspectionCost', max: ceiling },
        },
      ]);
    });

    it('leaves an operation without introspection to maxCost alone, however costly', async () => {
      // Each fragment doubles the one before: far above both maxCost and introspection's ceiling.
      const fragments = ['fragment F1 on Node { name }'];
      for (let k = 2; k <= 7; k++) fragments.push(`fragment F${k} on Node { child { ...F${k - 1} ...F${k - 1} } }`);
      const query = `{ node { ...F7 } } ${fragments.join(' ')}`;
      const { body } = await answerTo(yogaWith([useLimits({ maxDepth: 100 })]), { query });
      expect(body.errors.map((error: { extensions: { limit: string } }) => error.extensions.limit)).toEqual(['cost']);
    });

    it('allows introspection up to maxCost when that is higher', async () => {
      expect((await answerTo(yogaWith([useLimits({ maxCost: 1_000_000 })]), { query: introspection(3) })).status).toBe(200);
    });
  });
});
