import { getIntrospectionQuery } from 'graphql';
import { describe, expect } from 'vitest';
import { FULLEST_INTROSPECTION_QUERY } from '../../src/plugins/use-limits.js';
import { gatewayOverUpstream } from '../support/fixtures.js';
import { codes } from './harness.js';

/**
 * Introspection's own bounds (armor leaves `__schema` out of depth and cost): what real tools send
 * runs without a token, a multiplied or nested copy of it does not.
 */
const it = gatewayOverUpstream(undefined, { production: true, introspection: true });

describe('introspection', () => {
  it('runs the fullest standard introspection query, as codegen and GraphiQL send it', async ({ gateway }) => {
    const query = FULLEST_INTROSPECTION_QUERY;
    const answer = await gateway.graphql(query);
    expect(answer.body.errors).toBeUndefined();
    expect((answer.body.data as { __schema: { types: unknown[] } }).__schema.types.length).toBeGreaterThan(20);
  });

  it('refuses fifteen aliased copies of it, without a token, as LIMIT_EXCEEDED', async ({ gateway }) => {
    const one = getIntrospectionQuery()
      .replace(/^\s*query IntrospectionQuery \{\s*__schema/, '')
      .replace(/\}\s*fragment[\s\S]*$/, '');
    const fragments = getIntrospectionQuery().slice(getIntrospectionQuery().indexOf('fragment'));
    const aliased = `{ ${Array.from({ length: 15 }, (_, i) => `s${i}: __schema ${one}`).join(' ')} } ${fragments}`;
    const answer = await gateway.graphql(aliased);
    expect(answer.status).toBe(400);
    expect(codes(answer)).toEqual(['LIMIT_EXCEEDED']);
    expect(answer.body.errors?.[0]?.extensions).toMatchObject({ code: 'LIMIT_EXCEEDED', limit: 'introspectionCost' });
  });

  it('refuses listing fields of the types of fields of types, three deep', async ({ gateway }) => {
    const answer = await gateway.graphql('{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }');
    expect(answer.status).toBe(400);
    expect(answer.body.errors?.map((error) => error.message)).toEqual(['Maximum introspection depth exceeded']);
  });
});
