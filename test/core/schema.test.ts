import { readFileSync } from 'node:fs';
import {
  buildClientSchema,
  buildSchema,
  getIntrospectionQuery,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  lexicographicSortSchema,
  printSchema,
} from 'graphql';
import { describe, expect } from 'vitest';
import { schema } from '../../src/schema/index.js';
import { gatewayOverUpstream } from '../support/fixtures.js';

const committed = readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8');

const it = gatewayOverUpstream();

describe('schema.graphql', () => {
  it('is exactly what the code builds', () => {
    expect(`${printSchema(schema)}\n`, 'schema.graphql is stale: run `npm run schema:write` and commit it').toBe(committed);
  });

  it('is what the running gateway serves over introspection, without a token', async ({ gateway, upstream }) => {
    const answer = await gateway.graphql(getIntrospectionQuery({ descriptions: true, specifiedByUrl: true }));
    const served = buildClientSchema(answer.body.data as never);
    expect(printSchema(lexicographicSortSchema(served))).toBe(printSchema(lexicographicSortSchema(buildSchema(committed))));
    expect(upstream.requests).toEqual([]);
  });

  it('describes every type, field, argument and enum value', () => {
    const missing: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__') || ['String', 'Boolean', 'Int', 'Float', 'ID'].includes(type.name)) continue;
      if (!type.description) missing.push(type.name);
      if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
        for (const field of Object.values(type.getFields())) {
          if (!field.description) missing.push(`${type.name}.${field.name}`);
          for (const arg of 'args' in field ? field.args : [])
            if (!arg.description) missing.push(`${type.name}.${field.name}(${arg.name})`);
        }
      }
      if (isEnumType(type)) for (const value of type.getValues()) if (!value.description) missing.push(`${type.name}.${value.name}`);
    }
    expect(missing).toEqual([]);
  });

  it('keeps root fields nullable so one failing field never empties its siblings', () => {
    const roots = [schema.getQueryType()!, schema.getMutationType()!].flatMap((type) => Object.values(type.getFields()));
    expect(roots.filter((field) => String(field.type).endsWith('!')).map((field) => field.name)).toEqual([]);
  });
});
