import { Client, cacheExchange as documentCacheExchange, fetchExchange, gql, type OperationResult } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import { relayPagination } from '@urql/exchange-graphcache/extras';
import { persistedExchange } from '@urql/exchange-persisted';
import { describe, expect } from 'vitest';
import { SANDBOX_AUTH } from '../support/auth.js';
import { gatewayOverSandbox } from '../support/fixtures.js';
import { keyNamesQuery } from '../support/incremental.js';
import { recordingFetch, type SentRequest } from '../support/recording-fetch.js';

/** urql, with its default options and with graphcache, against the sandbox over real HTTP. */
const it = gatewayOverSandbox();

const fetchOptions = { headers: SANDBOX_AUTH };

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

type Page = { apiKeys: { edges: Array<{ node: { id: string } }>; pageInfo: { hasNextPage: boolean; endCursor: string } } };

describe('urql', () => {
  it('with its default options sends queries by GET with only the Authorization header, and mutations by POST', async ({ gateway }) => {
    const sent: SentRequest[] = [];
    const client = new Client({
      url: gateway.url,
      exchanges: [documentCacheExchange, fetchExchange],
      fetchOptions,
      fetch: recordingFetch(sent),
    });
    const keys = await client.query(API_KEYS, { first: 2 }).toPromise();
    expect(keys.error).toBeUndefined();
    expect((keys.data as Page).apiKeys.edges.map((edge) => edge.node.id)).toEqual(['ak_001', 'ak_002']);
    const renamed = await client
      .mutation(
        gql`
          mutation Rename {
            updateCategory(input: { id: "cat_004", name: "From urql" }) {
              category {
                id
                name
              }
            }
          }
        `,
        {},
      )
      .toPromise();
    expect(renamed.data).toEqual({
      updateCategory: { __typename: 'UpdateCategoryPayload', category: { __typename: 'Category', id: 'cat_004', name: 'From urql' } },
    });
    expect(sent.map((request) => [request.method, request.url.searchParams.has('query')])).toEqual([
      ['GET', true],
      ['POST', false],
    ]);
  });

  it('pages apiKeys to the end with graphcache relayPagination: 62 keys in order, one request per page', async ({ gateway }) => {
    const sent: SentRequest[] = [];
    const client = new Client({
      url: gateway.url,
      exchanges: [cacheExchange({ resolvers: { Query: { apiKeys: relayPagination() } } }), fetchExchange],
      fetchOptions,
      fetch: recordingFetch(sent),
    });
    let page = (await client.query(API_KEYS, { first: 25 }).toPromise()).data as Page;
    while (page.apiKeys.pageInfo.hasNextPage) {
      page = (await client.query(API_KEYS, { first: 25, after: page.apiKeys.pageInfo.endCursor }).toPromise()).data as Page;
    }
    expect(page.apiKeys.edges.map((edge) => edge.node.id)).toEqual(
      Array.from({ length: 62 }, (_, i) => `ak_${String(i + 1).padStart(3, '0')}`),
    );
    expect(sent).toHaveLength(3);
  });

  it('sends a known query by hash alone with persistedExchange: hash, then hash and text once, then hash, all by GET', async ({
    gateway,
  }) => {
    const sent: SentRequest[] = [];
    const query = gql`
      query UrqlPersisted {
        apiKeys(first: 2) {
          nodes {
            id
          }
        }
      }
    `;
    const make = () =>
      new Client({
        url: gateway.url,
        exchanges: [persistedExchange({ preferGetForPersistedQueries: true }), fetchExchange],
        fetchOptions,
        fetch: recordingFetch(sent),
      });
    const expected = { apiKeys: { nodes: [{ id: 'ak_001' }, { id: 'ak_002' }] } };
    expect((await make().query(query, {}).toPromise()).data).toEqual(expected);
    expect((await make().query(query, {}).toPromise()).data).toEqual(expected);
    expect(
      sent.map((request) => [
        request.method,
        request.url.searchParams.has('query') || (request.body as { query?: unknown } | undefined)?.query !== undefined,
      ]),
    ).toEqual([
      ['GET', false],
      ['GET', true],
      ['GET', false],
    ]);
  });

  it('receives apiKeys under @stream part by part (multipart/mixed), merged into exactly the unstreamed result', async ({ gateway }) => {
    const client = new Client({ url: gateway.url, exchanges: [fetchExchange], fetchOptions });
    const streamed = gql(keyNamesQuery(62, { streamed: true }));
    const results: OperationResult[] = [];
    await new Promise<void>((resolve, reject) => {
      const { unsubscribe } = client.query(streamed, {}).subscribe((result) => {
        results.push(result);
        if (result.error) reject(result.error);
        if (!result.hasNext) {
          // Not at once: urql cancels the body it has just read to its end without awaiting it, and
          // the abort of an unsubscribe in the same turn makes that an unhandled rejection.
          setImmediate(unsubscribe);
          resolve();
        }
      });
    });
    const plain = await client.query(API_KEYS, { first: 62 }).toPromise();
    const edgesOf = (result: OperationResult) => (result.data as Page).apiKeys.edges;
    expect(edgesOf(results.at(-1)!)).toEqual(edgesOf(plain));
    expect((results.at(-1)!.data as Page).apiKeys.pageInfo).toEqual((plain.data as Page).apiKeys.pageInfo);
    expect(results.length).toBeGreaterThan(1);
    expect([results[0]!.hasNext, edgesOf(results[0]!).length]).toEqual([true, 25]);
  });
});
