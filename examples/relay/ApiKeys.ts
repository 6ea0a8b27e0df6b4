import { graphql } from 'relay-runtime';

/**
 * Relay's documents for the API key list, as an app writes them. `npm run relay` compiles them
 * against schema.graphql into __generated__/; test/clients/relay.test.ts runs the artifacts with
 * relay-runtime, paging the @connection to the end.
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
