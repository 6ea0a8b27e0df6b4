import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { type YogaServerInstance, createYoga } from 'graphql-yoga';
import { Caller, type CallerContext } from './context.js';
import { useUpstreamErrors } from './plugins/use-upstream-errors.js';
import { schema } from './schema/index.js';
import { UpstreamClient } from './upstream/client.js';

export interface GatewayOptions {
  /** Upstream base address ending in /v2. */
  upstreamUrl: URL;
  /** Bound of each upstream request. @default 10000 */
  upstreamTimeoutMs?: number;
  /** Serve GraphiQL to browsers on GET /graphql. @default true */
  graphiql?: boolean;
  /** Headers GraphiQL opens with, e.g. the sandbox's Authorization header. @default none */
  graphiqlHeaders?: Record<string, string>;
}

export interface Gateway {
  yoga: YogaServerInstance<Record<string, unknown>, CallerContext>;
  close(): Promise<void>;
}

export const EXAMPLE_QUERY = `# The first page of API keys. Add an "Authorization: Bearer <token>" header below.
query ApiKeys($first: Int = 5, $after: String) {
  apiKeys(first: $first, after: $after) {
    edges { cursor node { id name type permissions createdTime } }
    pageInfo { hasNextPage endCursor }
  }
}
`;

/** The GraphQL server in front of one upstream. The schema is built once; everything per caller lives in its context. */
export function createGateway(options: GatewayOptions): Gateway {
  const client = new UpstreamClient({ baseUrl: options.upstreamUrl, timeoutMs: options.upstreamTimeoutMs ?? 10_000 });
  const yoga = createYoga<Record<string, unknown>, CallerContext>({
    schema,
    context: ({ request }) => ({ caller: new Caller(request, client) }),
    graphqlEndpoint: '/graphql',
    landingPage: false,
    logging: false,
    maskedErrors: { isDev: false },
    graphiql:
      options.graphiql === false
        ? false
        : {
            title: 'Video Management GraphQL',
            defaultQuery: EXAMPLE_QUERY,
            headers: JSON.stringify(options.graphiqlHeaders ?? {}, null, 2),
            shouldPersistHeaders: false,
          },
    renderGraphiQL,
    plugins: [useUpstreamErrors()],
  });
  return { yoga, close: () => client.close() };
}
