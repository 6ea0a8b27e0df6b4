import SchemaBuilder from '@pothos/core';
import { buildSchema, type GraphQLEnumType, type GraphQLObjectType, printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { type Deprecation, deprecated, deprecationOf, schemaDeprecations } from '../../src/schema/deprecation.js';
import { schema } from '../../src/schema/index.js';

const LABEL: Deprecation = {
  reason: 'Use `name` instead.',
  since: '2026-09-30',
  sunset: '2027-03-31',
  link: 'https://docs.example.com/schema#labels',
};
const GUEST: Deprecation = { reason: 'Use VIEWER instead.', since: '2026-12-31', sunset: '2027-06-30' };

/** A schema with one deprecated field and one deprecated enum value, declared as the schema code declares them. */
function deprecatingSchema() {
  const builder = new SchemaBuilder({});
  const Role = builder.enumType('Role', {
    values: { VIEWER: { value: 'viewer' }, GUEST: { value: 'guest', ...deprecated(GUEST) } },
  });
  builder.queryType({
    fields: (t) => ({
      name: t.string({ resolve: () => 'key' }),
      label: t.string({ ...deprecated(LABEL), resolve: () => 'key' }),
      role: t.field({ type: Role, resolve: () => 'viewer' as const }),
    }),
  });
  return builder.toSchema();
}

describe('deprecated', () => {
  const schema = deprecatingSchema();

  it('writes the reason, the link and the sunset into @deprecated, in the form schema.graphql shows', () => {
    expect(printSchema(schema)).toBe(`type Query {
  label: String @deprecated(reason: "Use \`name\` instead. See <https://docs.example.com/schema#labels>. Sunset: 2027-03-31.")
  name: String
  role: Role
}

enum Role {
  GUEST @deprecated(reason: "Use VIEWER instead. Sunset: 2027-06-30.")
  VIEWER
}`);
  });

  it('is read back the same from the built schema (extensions) and from its SDL (the reason), which does not say since when', () => {
    const fromSdl = buildSchema(printSchema(schema));
    const label = (s: typeof schema) => (s.getType('Query') as GraphQLObjectType).getFields().label!;
    const guest = (s: typeof schema) => (s.getType('Role') as GraphQLEnumType).getValue('GUEST')!;
    const viewer = (s: typeof schema) => (s.getType('Role') as GraphQLEnumType).getValue('VIEWER')!;
    for (const built of [schema, fromSdl]) {
      const since = (day: string) => (built === schema ? day : undefined);
      expect(deprecationOf(label(built))).toEqual({
        reason: 'Use `name` instead.',
        since: since('2026-09-30'),
        sunset: '2027-03-31',
        link: 'https://docs.example.com/schema#labels',
      });
      expect(deprecationOf(guest(built))).toEqual({
        reason: 'Use VIEWER instead.',
        since: since('2026-12-31'),
        sunset: '2027-06-30',
        link: undefined,
      });
      expect(deprecationOf(viewer(built))).toBeUndefined();
    }
    expect(label(schema).extensions.deprecation).toEqual(LABEL);
  });

  it('refuses a declaration it could not write or read back, so the schema is not built', () => {
    const refusal = (deprecation: Deprecation) => {
      try {
        deprecated(deprecation);
        return 'built';
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(refusal({ reason: 'Use name instead', since: '2026-09-30', sunset: '2027-03-31' })).toBe(
      'A deprecation reason is one or more sentences ending in a period, without "Sunset:" or "See <": "Use name instead"',
    );
    expect(refusal({ reason: 'Gone. Sunset: soon.', since: '2026-09-30', sunset: '2027-03-31' })).toMatch(
      /^A deprecation reason is one or more sentences/,
    );
    expect(refusal({ reason: 'Use name instead.', since: '2026-09-30', sunset: '2027-02-30' })).toBe(
      'A deprecation\'s sunset is a day written YYYY-MM-DD: "2027-02-30"',
    );
    expect(refusal({ reason: 'Use name instead.', since: '2026-09-30', sunset: '31.03.2027' })).toBe(
      'A deprecation\'s sunset is a day written YYYY-MM-DD: "31.03.2027"',
    );
    expect(refusal({ reason: 'Use name instead.', since: '2027-04-01', sunset: '2027-03-31' })).toBe(
      'A deprecation\'s since is a day written YYYY-MM-DD, not after its sunset: "2027-04-01"',
    );
    expect(refusal({ reason: 'Use name instead.', since: '2026-09-30', sunset: '2027-03-31', link: 'docs/schema.md' })).toBe(
      'A deprecation\'s link is an absolute http(s) URL: "docs/schema.md"',
    );
  });
});

describe('deprecationOf', () => {
  it('reads a plain @deprecated as a deprecation without a sunset, and refuses a sunset it cannot read', () => {
    expect(deprecationOf({ deprecationReason: 'Use name instead.' })).toEqual({
      reason: 'Use name instead.',
      since: undefined,
      sunset: undefined,
      link: undefined,
    });
    expect(deprecationOf({ deprecationReason: null })).toBeUndefined();
    expect(() => deprecationOf({ deprecationReason: 'Use name instead. Sunset: 31 March 2027.' })).toThrow(
      'The deprecation reason "Use name instead. Sunset: 31 March 2027." names a sunset, but not as "Sunset: YYYY-MM-DD." at its end.',
    );
    expect(() => deprecationOf({ deprecationReason: 'Use name instead. Sunset: 2027-02-30.' })).toThrow(
      'The deprecation reason "Use name instead. Sunset: 2027-02-30." names a sunset day that does not exist.',
    );
  });
});

describe('schemaDeprecations', () => {
  it('finds every deprecated field, argument, input field and enum value by its coordinate', () => {
    const sdl = buildSchema(`
      type Query { old(arg: String @deprecated(reason: "No longer read.")): String @deprecated(reason: "Use new. Sunset: 2027-03-31.") new(input: In): E }
      input In { gone: String @deprecated(reason: "Ignored.") kept: String }
      enum E { A B @deprecated(reason: "Use A.") }
    `);
    expect(
      Object.fromEntries([...schemaDeprecations(sdl)].map(([coordinate, { reason, sunset }]) => [coordinate, { reason, sunset }])),
    ).toEqual({
      'Query.old': { reason: 'Use new.', sunset: '2027-03-31' },
      'Query.old(arg:)': { reason: 'No longer read.', sunset: undefined },
      'In.gone': { reason: 'Ignored.', sunset: undefined },
      'E.B': { reason: 'Use A.', sunset: undefined },
    });
  });

  it('finds in the gateway’s schema only deprecations declared with `deprecated`, each with its dates', () => {
    const undated = [...schemaDeprecations(schema)].filter(([, notice]) => notice.since === undefined || notice.sunset === undefined);
    expect(undated).toEqual([]);
  });
});
