import { graphql } from 'relay-runtime';

/**
 * Relay's documents for the API key list, as an app writes them. `npm run relay` compiles them
 * against schema.graphql into __generated__/; test/clients/relay.test.ts runs the artifacts with
 * relay-runtime, paging the @connection to the end, and reading the @stream_connection part by
 * part through the network layer of network.ts.
 */
export const apiKeysQuery = graphql`
  query ApiKeysQuery($count: Int = 25, $cursor: String) {
    ...ApiKeys_query @arguments(count: $count, cursor: $cursor)
  }
`;

export const apiKeysFragment = graphql`
  fragment ApiKeys_query on Query
  @refetchable(queryName: "ApiKeysPaginationQuery")
  @argumentDefinitions(count: { type: "Int", defaultValue: 25 }, cursor: { type: "String" }) {
    apiKeys(first: $count, after: $cursor) @connection(key: "ApiKeys_apiKeys") {
      edges {
        node {
          id
          name
          createdTime
        }
      }
    }
  }
`;

/** The first 100 keys streamed: 25 in the first part, each later upstream page in a part of its own, pageInfo deferred. */
export const apiKeysStreamQuery = graphql`
  query ApiKeysStreamQuery {
    ...ApiKeysStream_query
  }
`;

export const apiKeysStreamFragment = graphql`
  fragment ApiKeysStream_query on Query {
    apiKeys(first: 100) @stream_connection(key: "ApiKeysStream_apiKeys", initial_count: 25) {
      edges {
        node {
          id
          name
        }
      }
    }
  }
`;
