import type { YogaServerOptions } from 'graphql-yoga';
import { graphiqlAssets, graphiqlShell } from './assets.js';

// Lines of at most 60 characters: the editor shows them whole in a window of 1400 × 900 (test/clients/graphiql-browser.test.ts).
const EXAMPLE_QUERY = `# The first page of API keys. It is sent with the
# Authorization header of the Headers tab below.
query ApiKeys($first: Int = 5, $after: String) {
  apiKeys(first: $first, after: $after) {
    edges {
      cursor
      node { id name type permissions createdTime }
    }
    pageInfo { hasNextPage endCursor }
  }
}
`;

// GraphiQL ignores a tab's variables, so the example input is written inline.
const EXAMPLE_MUTATION = `# Renames a category. Mutations are sent by POST only.
mutation UpdateCategory {
  updateCategory(
    input: { id: "cat_001", name: "Renamed in GraphiQL" }
  ) {
    category { id name value updatedTime }
  }
}
`;

// Sent as it is written, so the answer comes in parts: the first 25 keys, then each further upstream page as it arrives.
const EXAMPLE_STREAM = `# API keys in parts: the first 25 at once, then the rest
# as each upstream page arrives, and pageInfo last. Open
# the Upstream tab (left) to see the REST call of each.
query StreamedApiKeys {
  apiKeys(first: 60) {
    edges @stream(initialCount: 25) {
      node { id name type }
    }
    ... @defer { pageInfo { hasNextPage endCursor } }
  }
}
`;

type GraphiQLOptions = Pick<YogaServerOptions<object, object>, 'graphiql' | 'renderGraphiQL'>;

/**
 * Yoga's GraphiQL options: the page opens with an example query, mutation and streamed query, each tab with
 * `headers` (the sandbox's Authorization header, when the gateway forwards to it).
 */
export function graphiqlOptions(enabled: boolean, headers: Record<string, string> = {}): GraphiQLOptions {
  if (!enabled) return { graphiql: false };
  const headerText = JSON.stringify(headers, null, 2);
  return {
    graphiql: {
      title: 'Video Management GraphQL',
      defaultQuery: EXAMPLE_QUERY,
      headers: headerText,
      defaultTabs: [
        { query: EXAMPLE_QUERY, headers: headerText },
        { query: EXAMPLE_MUTATION, headers: headerText },
        { query: EXAMPLE_STREAM, headers: headerText },
      ],
      shouldPersistHeaders: false,
    },
    // A small page linking the static assets that useGraphiQLAssets serves; Yoga adds `no-store`, the assets are cached.
    renderGraphiQL: async (page) => graphiqlShell(await graphiqlAssets(), page ?? {}),
  };
}
