import { readFileSync } from 'node:fs';
import { ApolloClient, ApolloLink, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { Defer20220824Handler } from '@apollo/client/incremental';
import { BatchHttpLink } from '@apollo/client/link/batch-http';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { relayStylePagination } from '@apollo/client/utilities';
import { filter, firstValueFrom, tap } from 'rxjs';
import { describe, expect } from 'vitest';
import { blocksBetween, README_APP_STEP } from '../support/app-folder.js';
import { sha256 } from '../support/apq.js';
import { SANDBOX_AUTH } from '../support/auth.js';
import { gatewayOverSandbox } from '../support/fixtures.js';
import { keyNamesQuery } from '../support/incremental.js';
import { recordingFetch, type SentRequest } from '../support/recording-fetch.js';

/**
 * Apollo Client 4, configured as its documentation shows, against the sandbox over real HTTP:
 * every HTTP request it sends is recorded, so the tests assert how many went out and how.
 */
const it = gatewayOverSandbox();

const headers = SANDBOX_AUTH;

const API_KEYS = gql`
  query ApiKeys($first: Int, $after: String) {
    apiKeys(first: $first, after: $after) {
      edges {
        cursor
        node {
          id
          name
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`;

const RENAME = gql`
  mutation Rename($input: UpdateCategoryInput!) {
    updateCategory(input: $input) {
      category {
        id
        name
      }
    }
  }
`;

const allKeys = Array.from({ length: 62 }, (_, i) => ({ id: `ak_${String(i + 1).padStart(3, '0')}`, name: `API key ${i + 1}` }));

describe('Apollo Client', () => {
  it('pages apiKeys to the end with relayStylePagination and fetchMore: 62 keys in order, one request per page', async ({ gateway }) => {
    const sent: SentRequest[] = [];
    const client = new ApolloClient({
      link: new HttpLink({ uri: gateway.url, headers, fetch: recordingFetch(sent) }),
      cache: new InMemoryCache({ typePolicies: { Query: { fields: { apiKeys: relayStylePagination() } } } }),
    });
    const observable = client.watchQuery({ query: API_KEYS, variables: { first: 25 } });
    const first = await firstValueFrom(observable.pipe(filter((result) => result.dataState === 'complete')));
    let page = first.data as { apiKeys: { pageInfo: { hasNextPage: boolean; endCursor: string } } };
    while (page.apiKeys.pageInfo.hasNextPage) {
      const more = await observable.fetchMore({ variables: { first: 25, after: page.apiKeys.pageInfo.endCursor } });
      page = more.data as typeof page;
    }
    const merged = client.readQuery({ query: API_KEYS, variables: { first: 25 } }) as {
      apiKeys: { edges: Array<{ node: { id: string; name: string } }>; pageInfo: { hasNextPage: boolean } };
    };
    expect(merged.apiKeys.edges.map((edge) => ({ id: edge.node.id, name: edge.node.name }))).toEqual(allKeys);
    expect(merged.apiKeys.pageInfo.hasNextPage).toBe(false);
    expect(sent.map((request) => [request.method, (request.body as { variables: unknown }).variables])).toEqual([
      ['POST', { first: 25 }],
      ['POST', { first: 25, after: expect.any(String) }],
      ['POST', { first: 25, after: expect.any(String) }],
    ]);
  });

  it("pages the README's own ApiKeys query to the end with docs/clients.md's set-up: every page merged, none replaced", async ({
    gateway,
  }) => {
    const readme = blocksBetween(readFileSync(new URL('../../README.md', import.meta.url), 'utf8'), ...README_APP_STEP);
    const text = /graphql\(`([\s\S]*)`\)/.exec(readme.find(({ file }) => file === 'src/api-keys.ts')!.text)![1]!;
    const query = gql(text);
    const client = new ApolloClient({
      link: new HttpLink({ uri: gateway.url, headers }),
      cache: new InMemoryCache({ typePolicies: { Query: { fields: { apiKeys: relayStylePagination() } } } }),
    });
    type Keys = { apiKeys: { edges?: Array<{ node: { id: string } }>; pageInfo: { hasNextPage: boolean; endCursor: string } } };
    const observable = client.watchQuery({ query });
    let page = (await firstValueFrom(observable.pipe(filter((result) => result.dataState === 'complete')))).data as Keys;
    while (page.apiKeys.pageInfo.hasNextPage) {
      page = (await observable.fetchMore({ variables: { after: page.apiKeys.pageInfo.endCursor } })).data as Keys;
    }
    const merged = client.readQuery({ query }) as Keys;
    expect(merged.apiKeys.edges?.map((edge) => edge.node.id)).toEqual(allKeys.map((key) => key.id));
  });

  it('normalises the record a mutation returns: the cache holds Category:cat_002 with its new name', async ({ gateway }) => {
    const client = new ApolloClient({ link: new HttpLink({ uri: gateway.url, headers }), cache: new InMemoryCache() });
    await client.mutate({ mutation: RENAME, variables: { input: { id: 'cat_002', name: 'First' } } });
    await client.mutate({ mutation: RENAME, variables: { input: { id: 'cat_002', name: 'Second' } } });
    const fragment = gql`
      fragment Named on Category {
        id
        name
      }
    `;
    expect(client.cache.identify({ __typename: 'Category', id: 'cat_002' })).toBe('Category:cat_002');
    expect(client.readFragment({ id: 'Category:cat_002', fragment })).toEqual({ __typename: 'Category', id: 'cat_002', name: 'Second' });
  });

  it('reads BAD_USER_INPUT with errorPolicy "all" beside the data, and throws it with the default policy', async ({ gateway }) => {
    const client = new ApolloClient({ link: new HttpLink({ uri: gateway.url, headers }), cache: new InMemoryCache() });
    const both = gql`
      query Both {
        ok: apiKeys(first: 1) {
          edges {
            node {
              id
            }
          }
        }
        tooMany: apiKeys(first: 101) {
          edges {
            node {
              id
            }
          }
        }
      }
    `;
    const all = await client.query({ query: both, errorPolicy: 'all' });
    expect(all.data).toEqual({
      ok: { __typename: 'ApiKeyConnection', edges: [{ __typename: 'ApiKeyEdge', node: { __typename: 'ApiKey', id: 'ak_001' } }] },
      tooMany: null,
    });
    const errors = (all.error as unknown as { errors: Array<{ message: string; path: string[]; extensions: { code: string } }> }).errors;
    expect(errors.map(({ path, extensions }) => [path, extensions.code])).toEqual([[['tooMany'], 'BAD_USER_INPUT']]);
    await expect(client.query({ query: both, fetchPolicy: 'network-only' })).rejects.toThrow('"first" must be between 0 and 100.');
  });

  it('sends queries in one batched request with BatchHttpLink and gets each answer back', async ({ gateway }) => {
    const sent: SentRequest[] = [];
    const client = new ApolloClient({
      link: new BatchHttpLink({ uri: gateway.url, headers, fetch: recordingFetch(sent), batchMax: 10, batchInterval: 20 }),
      cache: new InMemoryCache(),
    });
    const [a, b, c] = await Promise.all([
      client.query({ query: API_KEYS, variables: { first: 1 } }),
      client.query({ query: API_KEYS, variables: { first: 2 } }),
      client.mutate({ mutation: RENAME, variables: { input: { id: 'cat_003', name: 'Batched' } } }),
    ]);
    expect((a.data as { apiKeys: { edges: unknown[] } }).apiKeys.edges).toHaveLength(1);
    expect((b.data as { apiKeys: { edges: unknown[] } }).apiKeys.edges).toHaveLength(2);
    expect(c.data).toEqual({
      updateCategory: { __typename: 'UpdateCategoryPayload', category: { __typename: 'Category', id: 'cat_003', name: 'Batched' } },
    });
    // One HTTP request for all three, answered with an array in the same order.
    expect(sent.map((request) => (Array.isArray(request.body) ? request.body.length : 'single'))).toEqual([3]);
  });

  it('sends a known query by hash alone with PersistedQueryLink: hash, then text once, then hash by GET', async ({ gateway }) => {
    const sent: SentRequest[] = [];
    const link = ApolloLink.from([
      new PersistedQueryLink({ sha256, useGETForHashedQueries: true }),
      new HttpLink({ uri: gateway.url, headers, fetch: recordingFetch(sent) }),
    ]);
    const query = gql`
      query PersistedKeys {
        apiKeys(first: 3) {
          nodes {
            id
          }
        }
      }
    `;
    const expected = {
      apiKeys: { __typename: 'ApiKeyConnection', nodes: ['ak_001', 'ak_002', 'ak_003'].map((id) => ({ __typename: 'ApiKey', id })) },
    };
    const first = new ApolloClient({ link, cache: new InMemoryCache() });
    expect((await first.query({ query })).data).toEqual(expected);
    const second = new ApolloClient({ link, cache: new InMemoryCache() });
    expect((await second.query({ query })).data).toEqual(expected);
    expect(
      sent.map((request) => [
        request.method,
        request.method === 'GET' ? request.url.searchParams.has('query') : 'query' in (request.body as object),
      ]),
    ).toEqual([
      ['GET', false],
      ['POST', true],
      ['GET', false],
    ]);
  });

  describe('incremental delivery (Defer20220824Handler)', () => {
    const STREAMED_KEYS = gql(keyNamesQuery(62, { streamed: true }));
    const PLAIN_KEYS = gql(keyNamesQuery(62, { streamed: false }));
    type Keys = { apiKeys: { edges?: unknown[]; pageInfo?: unknown } };

    /** A client whose link reports each result HttpLink hands on: one per part of an answer in parts. */
    function streamingClient(url: string, chunks: Array<{ hasNext?: boolean; edges?: number }>, link: ApolloLink[] = []) {
      const counting = new ApolloLink((operation, forward) =>
        forward(operation).pipe(
          tap((chunk) => {
            const data = (chunk as { data?: Keys | null }).data;
            chunks.push({ hasNext: (chunk as { hasNext?: boolean }).hasNext, edges: data?.apiKeys?.edges?.length });
          }),
        ),
      );
      return new ApolloClient({
        link: ApolloLink.from([counting, ...link, new HttpLink({ uri: url, headers })]),
        cache: new InMemoryCache(),
        incrementalHandler: new Defer20220824Handler(),
      });
    }

    const plainResult = async (url: string) =>
      (await new ApolloClient({ link: new HttpLink({ uri: url, headers }), cache: new InMemoryCache() }).query({ query: PLAIN_KEYS })).data;

    it('receives apiKeys under @stream part by part, merged into exactly the unstreamed result', async ({ gateway }) => {
      const chunks: Array<{ hasNext?: boolean; edges?: number }> = [];
      const client = streamingClient(gateway.url, chunks);
      const states: string[] = [];
      const final = await firstValueFrom(
        client.watchQuery({ query: STREAMED_KEYS }).pipe(
          tap((result) => states.push(result.dataState)),
          filter((result) => result.dataState === 'complete'),
        ),
      );
      expect(final.data).toEqual(await plainResult(gateway.url));
      expect(chunks[0]).toEqual({ hasNext: true, edges: 25 });
      expect(chunks.length).toBeGreaterThan(1);
      expect(chunks.at(-1)!.hasNext).toBe(false);
      expect(states.filter((state) => state !== 'empty')[0]).toBe('streaming');
    });

    it('receives a @defer fragment after the rest of the result', async ({ gateway }) => {
      const chunks: Array<{ hasNext?: boolean; edges?: number }> = [];
      const deferred = gql`
        query DeferredPageInfo {
          apiKeys(first: 62) {
            edges {
              cursor
              node {
                id
                name
              }
            }
            ... @defer {
              pageInfo {
                hasNextPage
                endCursor
              }
            }
          }
        }
      `;
      const result = await streamingClient(gateway.url, chunks).query({ query: deferred });
      expect(result.data).toEqual(await plainResult(gateway.url));
      expect(chunks).toEqual([
        { hasNext: true, edges: 62 },
        { hasNext: false, edges: undefined },
      ]);
    });

    it('streams a query sent by hash alone with PersistedQueryLink (automatic persisted queries)', async ({ gateway }) => {
      const chunks: Array<{ hasNext?: boolean; edges?: number }> = [];
      const persisted = () => new PersistedQueryLink({ sha256 });
      // The first client registers the text; the second sends the hash alone.
      await streamingClient(gateway.url, [], [persisted()]).query({ query: STREAMED_KEYS });
      const result = await streamingClient(gateway.url, chunks, [persisted()]).query({ query: STREAMED_KEYS });
      expect(result.data).toEqual(await plainResult(gateway.url));
      expect(chunks[0]).toEqual({ hasNext: true, edges: 25 });
    });
  });
});
