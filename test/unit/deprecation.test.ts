import SchemaBuilder from '@pothos/core';
import { buildSchema, type GraphQLEnumType, type GraphQLObjectType, printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { type Deprecation, deprecated, deprecationOf } from '../../src/schema/deprecation.js';

const LABEL: Deprecation = { reason: 'Use `name` instead.', sunset: '2027-03-31', link: 'https://docs.example.com/schema#labels' };
const GUEST: Deprecation = { reason: 'Use VIEWER instead.', sunset: '2027-06-30' };

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

  it('is read back the same from the built schema (extensions) and from its SDL (the reason)', () => {
    const fromSdl = buildSchema(printSchema(schema));
    const label = (s: typeof schema) => (s.getType('Query') as GraphQLObjectType).getFields().label!;
    const guest = (s: typeof schema) => (s.getType('Role') as GraphQLEnumType).getValue('GUEST')!;
    const viewer = (s: typeof schema) => (s.getType('Role') as GraphQLEnumType).getValue('VIEWER')!;
    for (const built of [schema, fromSdl]) {
      expect(deprecationOf(label(built))).toEqual({
        reason: 'Use `name` instead.',
        sunset: '2027-03-31',
        link: 'https://docs.example.com/schema#labels',
      });
      expect(deprecationOf(guest(built))).toEqual({ reason: 'Use VIEWER instead.', sunset: '2027-06-30', link: undefined });
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
    expect(refusal({ reason: 'Use name instead', sunset: '2027-03-31' })).toBe(
      'A deprecation reason is one or more sentences ending in a period, without "Sunset:" or "See <": "Use name instead"',
    );
    expect(refusal({ reason: 'Gone. Sunset: soon.', sunset: '2027-03-31' })).toMatch(/^A deprecation reason is one or more sentences/);
    expect(refusal({ reason: 'Use name instead.', sunset: '2027-02-30' })).toBe(
      'A deprecation\'s sunset is a day written YYYY-MM-DD: "2027-02-30"',
    );
    expect(refusal({ reason: 'Use name instead.', sunset: '31.03.2027' })).toBe(
      'A deprecation\'s sunset is a day written YYYY-MM-DD: "31.03.2027"',
    );
    expect(refusal({ reason: 'Use name instead.', sunset: '2027-03-31', link: 'docs/schema.md' })).toBe(
      'A deprecation\'s link is an absolute http(s) URL: "docs/schema.md"',
    );
  });
});

describe('deprecationOf', () => {
  it('reads a plain @deprecated as a deprecation without a sunset, and refuses a sunset it cannot read', () => {
    expect(deprecationOf({ deprecationReason: 'Use name instead.' })).toEqual({
      reason: 'Use name instead.',
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
