import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  ConnectionHandler,
  commitLocalUpdate,
  createOperationDescriptor,
  Environment,
  fetchQuery,
  getRequest,
  Network,
  RecordSource,
  Store,
} from 'relay-runtime';
import { describe, expect } from 'vitest';
import ApiKeysPaginationQuery from '../../examples/relay/__generated__/ApiKeysPaginationQuery.graphql.js';
import ApiKeysQuery from '../../examples/relay/__generated__/ApiKeysQuery.graphql.js';
import { SANDBOX_AUTH } from '../support/auth.js';
import { gatewayOverSandbox } from '../support/fixtures.js';

/**
 * Relay: its compiler on schema.graphql (relay.config.json, the documents in examples/relay/), and
 * its runtime paging the @connection to the end against the sandbox, as usePaginationFragment does:
 * the refetchable pagination query with the last endCursor, merged into the connection by
 * ConnectionHandler.
 */
const it = gatewayOverSandbox();
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function relayEnvironment(url: string, sent: unknown[]) {
  const network = Network.create(async (params, variables) => {
    sent.push({ name: params.name, variables });
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...SANDBOX_AUTH },
      body: JSON.stringify({ query: params.text, variables }),
    });
    return response.json();
  });
  return new Environment({ network, store: new Store(new RecordSource()) });
}

/** The connection as the store holds it after the handler merged the pages. */
function readConnection(environment: Environment) {
  let read: { ids: string[]; hasNextPage: boolean; endCursor: string } | undefined;
  commitLocalUpdate(environment, (store) => {
    const connection = ConnectionHandler.getConnection(store.getRoot(), 'ApiKeys_apiKeys')!;
    const pageInfo = connection.getLinkedRecord('pageInfo')!;
    read = {
      ids: (connection.getLinkedRecords('edges') ?? []).map((edge) => edge!.getLinkedRecord('node')!.getValue('id') as string),
      hasNextPage: pageInfo.getValue('hasNextPage') as boolean,
      endCursor: pageInfo.getValue('endCursor') as string,
    };
  });
  return read!;
}

describe('Relay', () => {
  it('compiles the documents against schema.graphql, and the committed artifacts are current', () => {
    const output = execFileSync(process.execPath, ['node_modules/relay-compiler/cli.js', '--validate'], { cwd: ROOT, encoding: 'utf8' });
    expect(output).toContain('Done.');
  });

  it('pages the @connection to the end: 62 keys in order, one request per page', async ({ gateway }) => {
    const sent: unknown[] = [];
    const environment = relayEnvironment(gateway.url, sent);
    environment.retain(createOperationDescriptor(getRequest(ApiKeysQuery), {}));
    await fetchQuery(environment, ApiKeysQuery, {}).toPromise();
    let connection = readConnection(environment);
    while (connection.hasNextPage) {
      await fetchQuery(environment, ApiKeysPaginationQuery, { count: 25, cursor: connection.endCursor }).toPromise();
      connection = readConnection(environment);
    }
    expect(connection.ids).toEqual(Array.from({ length: 62 }, (_, i) => `ak_${String(i + 1).padStart(3, '0')}`));
    expect(sent).toEqual([
      { name: 'ApiKeysQuery', variables: { count: 25, cursor: null } },
      { name: 'ApiKeysPaginationQuery', variables: { count: 25, cursor: expect.any(String) } },
      { name: 'ApiKeysPaginationQuery', variables: { count: 25, cursor: expect.any(String) } },
    ]);
  });
});
