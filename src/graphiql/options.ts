import type { YogaServerOptions } from 'graphql-yoga';
import { graphiqlAssets, graphiqlShell } from './assets.js';
import type { SandboxOnPage } from './upstream-tab.js';

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

/** The embedded sandbox, when it is the gateway's upstream (src/server/upstream-source.ts). */
export interface GraphiQLSandbox {
  /** Its base address, on this machine's loopback. */
  url: URL;
  /** The token it is called with; it takes any. */
  token: string;
}

/**
 * Yoga's GraphiQL options: the page opens with an example query, mutation and streamed query. With
 * the sandbox as the upstream, each tab has its Authorization header, and the page (not GraphiQL)
 * gets its address and token as `sandbox`, for the Upstream tab's curl commands: the one upstream
 * address a page may hold, since a real one (UPSTREAM_URL) is never shown to a caller.
 */
export function graphiqlOptions(sandbox?: GraphiQLSandbox): GraphiQLOptions {
  const headerText = JSON.stringify(sandbox ? { Authorization: `Bearer ${sandbox.token}` } : {}, null, 2);
  const page: { sandbox?: SandboxOnPage } = sandbox ? { sandbox: { url: sandbox.url.href, token: sandbox.token } } : {};
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
    renderGraphiQL: async (options) => graphiqlShell(await graphiqlAssets(), { ...options, ...page }),
  };
}
