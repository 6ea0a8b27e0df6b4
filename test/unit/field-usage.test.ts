import { parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { coordinatesByNode, operationCoordinates, SCHEMA_COORDINATE } from '../../src/field-usage.js';
import { schema } from '../../src/schema/index.js';

describe('operationCoordinates', () => {
  it('names every field selected, through fragments and interfaces, and every argument, enum value, input field and directive written', () => {
    const document = parse(`
      query Keys($after: String, $first: Int) {
        __typename
        apiKeys(first: $first, after: $after) {
          edges @stream(initialCount: 5) { node { ...Key } }
          ... @defer { pageInfo { hasNextPage } }
        }
      }
      fragment Key on ApiKey { name ... on AuditedRecord { createdTime } }
    `);
    expect(validate(schema, document)).toEqual([]);
    expect(operationCoordinates(schema, document)).toEqual([
      '@defer',
      '@stream',
      '@stream(initialCount:)',
      'ApiKey.name',
      'ApiKeyConnection.edges',
      'ApiKeyConnection.pageInfo',
      'ApiKeyEdge.node',
      'AuditedRecord.createdTime',
      'PageInfo.hasNextPage',
      'Query.apiKeys',
      'Query.apiKeys(after:)',
      'Query.apiKeys(first:)',
    ]);
  });

  it('names the enum values and input fields of literals, not what a variable may hold', () => {
    const document = parse(`
      mutation Promote($name: String) {
        updateUser(input: { id: "usr_1", role: ADMIN, name: $name }) { user { role } }
        createService(input: { name: "x", provider: YOUTUBE }) { clientMutationId }
      }
    `);
    expect(validate(schema, document)).toEqual([]);
    expect(operationCoordinates(schema, document)).toEqual([
      'CreateServiceInput.name',
      'CreateServiceInput.provider',
      'CreateServicePayload.clientMutationId',
      'Mutation.createService',
      'Mutation.createService(input:)',
      'Mutation.updateUser',
      'Mutation.updateUser(input:)',
      'ServiceProvider.YOUTUBE',
      'UpdateUserInput.id',
      'UpdateUserInput.name',
      'UpdateUserInput.role',
      'UpdateUserPayload.user',
      'User.role',
      'UserRole.ADMIN',
    ]);
  });
});

describe('coordinatesByNode', () => {
  it('puts the nodes a validation error names at the coordinate they are written at, and leaves out what the schema lacks', () => {
    const document = parse('mutation { updateUser(input: { id: "usr_1", role: GUEST, nickname: "x" }) { user { nickname } } }');
    const at = coordinatesByNode(schema, document);
    expect(validate(schema, document).map((error) => [error.message, (error.nodes ?? []).map((node) => at.get(node))])).toEqual([
      ['Value "GUEST" does not exist in "UserRole" enum.', ['UpdateUserInput.role']],
      ['Field "nickname" is not defined by type "UpdateUserInput". Did you mean "name"?', [undefined]],
      ['Cannot query field "nickname" on type "User". Did you mean "name"?', [undefined]],
    ]);
  });
});

describe('SCHEMA_COORDINATE', () => {
  it('takes the coordinates of the spec and nothing else', () => {
    const valid = ['ApiKey', 'ApiKey.name', 'Query.apiKeys(first:)', 'UserRole.ADMIN', '@stream', '@stream(initialCount:)'];
    const invalid = ['', 'ApiKey.', 'Query.apiKeys(first)', 'Query.apiKeys.first', 'a.b.c', '@stream.initialCount', 'Api Key', '1Key'];
    expect(valid.filter((text) => !SCHEMA_COORDINATE.test(text))).toEqual([]);
    expect(invalid.filter((text) => SCHEMA_COORDINATE.test(text))).toEqual([]);
  });
});
