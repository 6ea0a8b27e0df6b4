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
import ApiKeysStreamQuery from '../../examples/relay/__generated__/ApiKeysStreamQuery.graphql.js';
import { gatewayNetwork } from '../../examples/relay/network.js';
import { SANDBOX_AUTH } from '../support/auth.js';
import { gatewayOverSandbox } from '../support/fixtures.js';

/**
 * Relay: its compiler on schema.graphql (relay.config.json, the documents in examples/relay/), and
 * its runtime paging the @connection to the end against the sandbox, as usePaginationFragment does:
 * the refetchable pagination query with the last endCursor, merged into the connection by
 * ConnectionHandler; and a @stream_connection read part by part, through the example's network
 * layer (examples/relay/network.ts).
 */
const it = gatewayOverSandbox();
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Relay's environment over the example's network layer, recording the operations it sends. */
function relayEnvironment(url: string, sent: unknown[] = []) {
  const network = gatewayNetwork(url, SANDBOX_AUTH);
  const recording = Network.create((params, variables, cacheConfig) => {
    sent.push({ name: params.name, variables });
    return network.execute(params, variables, cacheConfig);
  });
  return new Environment({ network: recording, store: new Store(new RecordSource()) });
}

/** The connection as the store holds it after the handler merged the pages (or the streamed edges). */
function readConnection(environment: Environment, key = 'ApiKeys_apiKeys') {
  let read: { ids: string[]; hasNextPage: boolean | undefined; endCursor: string | undefined } | undefined;
  commitLocalUpdate(environment, (store) => {
    const connection = ConnectionHandler.getConnection(store.getRoot(), key)!;
    const pageInfo = connection.getLinkedRecord('pageInfo');
    read = {
      ids: (connection.getLinkedRecords('edges') ?? []).map((edge) => edge!.getLinkedRecord('node')!.getValue('id') as string),
      hasNextPage: pageInfo?.getValue('hasNextPage') as boolean | undefined,
      endCursor: pageInfo?.getValue('endCursor') as string | undefined,
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
      await fetchQuery(environment, ApiKeysPaginationQuery, { count: 25, cursor: connection.endCursor! }).toPromise();
      connection = readConnection(environment);
    }
    expect(connection.ids).toEqual(Array.from({ length: 62 }, (_, i) => `ak_${String(i + 1).padStart(3, '0')}`));
    expect(sent).toEqual([
      { name: 'ApiKeysQuery', variables: { count: 25, cursor: null } },
      { name: 'ApiKeysPaginationQuery', variables: { count: 25, cursor: expect.any(String) } },
      { name: 'ApiKeysPaginationQuery', variables: { count: 25, cursor: expect.any(String) } },
    ]);
  });

  it('streams a @stream_connection: its edges reach the connection part by part, 62 keys in order once the stream ends', async ({
    gateway,
  }) => {
    const environment = relayEnvironment(gateway.url);
    environment.retain(createOperationDescriptor(getRequest(ApiKeysStreamQuery), {}));
    const seen: number[] = [];
    await new Promise<void>((resolve, reject) =>
      fetchQuery(environment, ApiKeysStreamQuery, {}).subscribe({
        next: () => seen.push(readConnection(environment, 'ApiKeysStream_apiKeys').ids.length),
        complete: resolve,
        error: reject,
      }),
    );
    const plain = await gateway.graphql('{ apiKeys(first: 100) { pageInfo { endCursor } } }', { headers: SANDBOX_AUTH });
    expect(readConnection(environment, 'ApiKeysStream_apiKeys')).toEqual({
      ids: Array.from({ length: 62 }, (_, i) => `ak_${String(i + 1).padStart(3, '0')}`),
      hasNextPage: false,
      endCursor: (plain.body.data as { apiKeys: { pageInfo: { endCursor: string } } }).apiKeys.pageInfo.endCursor,
    });
    expect(seen[0]).toBe(25);
    expect(seen.length).toBeGreaterThan(1);
  });
});
