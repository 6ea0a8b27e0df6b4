import type { TracerProvider } from '@opentelemetry/api';
import { type YogaServerInstance, createYoga } from 'graphql-yoga';
import { Caller, type CallerContext } from './context.js';
import { DEFAULT_LIMITS, type Limits, upstreamSettings } from './limits.js';
import { corsPolicy } from './cors.js';
import type { Logger } from './logger.js';
import { createOperations } from './operations.js';
import { useCacheControl } from './plugins/use-cache-control.js';
import { DEFAULT_COMPRESSION_MIN_BYTES, useCompression } from './plugins/use-compression.js';
import { useJit } from './plugins/use-jit.js';
import { useRequestErrorCodes } from './plugins/use-request-error-codes.js';
import { loadTrustedDocuments, useTrustedDocuments } from './plugins/use-trusted-documents.js';
import { useUpstreamErrors } from './plugins/use-upstream-errors.js';
import { useVaryOrigin } from './plugins/use-vary-origin.js';
import { schema } from './schema/index.js';
import { securityPlugins } from './security.js';
import { UpstreamClient } from './upstream/client.js';

export interface GatewayOptions {
  /** Upstream base address ending in /v2. */
  upstreamUrl: URL;
  /** Bound of each upstream request. @default 10000 */
  upstreamTimeoutMs?: number;
  /** Request lines (info) and upstream-call lines (debug), see src/logger.ts. @default none */
  logger?: Logger;
  /** Makes a span per operation and upstream call, see src/tracing.ts. @default none: no tracing */
  tracerProvider?: TracerProvider;
  /** Serve GraphiQL to browsers on GET /graphql. @default true */
  graphiql?: boolean;
  /** Headers GraphiQL opens with, e.g. the sandbox's Authorization header. @default none */
  graphiqlHeaders?: Record<string, string>;
  /** Path of a persisted-documents manifest: when set, only its operations run, sent by documentId. @default unset: any operation */
  trustedDocuments?: string;
  /** Origins browsers may call from (CORS); `*` for any. @default none */
  corsOrigins?: readonly string[];
  /** Smallest answer in bytes that is compressed. @default DEFAULT_COMPRESSION_MIN_BYTES */
  compressionMinBytes?: number;
  /** Resilience and operation limits (README, "Security and limits"); unset ones take DEFAULT_LIMITS. */
  limits?: Partial<Limits>;
}

export interface Gateway {
  yoga: YogaServerInstance<Record<string, unknown>, CallerContext>;
  close(): Promise<void>;
}

export const EXAMPLE_QUERY = `# The first page of API keys. Sends the "Authorization: Bearer <token>" header from the Headers tab.
query ApiKeys($first: Int = 5, $after: String) {
  apiKeys(first: $first, after: $after) {
    edges { cursor node { id name type permissions createdTime } }
    pageInfo { hasNextPage endCursor }
  }
}
`;

// GraphiQL ignores a tab's variables, so the example input is written inline.
export const EXAMPLE_MUTATION = `# Renames a category. Mutations are sent by POST only.
mutation UpdateCategory {
  updateCategory(input: { id: "cat_001", name: "Renamed in GraphiQL" }) { category { id name value updatedTime } }
}
`;

/** The GraphQL server in front of one upstream. The schema is built once; everything per caller lives in its context. */
export function createGateway(options: GatewayOptions): Gateway {
  const limits: Limits = { ...DEFAULT_LIMITS, ...options.limits };
  const operations = createOperations(options);
  const client = new UpstreamClient({ baseUrl: options.upstreamUrl, timeoutMs: options.upstreamTimeoutMs ?? 10_000, ...operations.clientHooks, ...upstreamSettings(limits) });
  const graphiqlHeaders = JSON.stringify(options.graphiqlHeaders ?? {}, null, 2);
  const yoga = createYoga<Record<string, unknown>, CallerContext>({
    schema,
    context: ({ request }) => ({ caller: new Caller(request, client, limits) }),
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
            headers: graphiqlHeaders,
            defaultTabs: [
              { query: EXAMPLE_QUERY, headers: graphiqlHeaders },
              { query: EXAMPLE_MUTATION, headers: graphiqlHeaders },
            ],
            shouldPersistHeaders: false,
          },
    // Loaded on first use: GraphiQL's bundled assets hold about 30 MB of heap, needless when it is off.
    renderGraphiQL: (page) => import('@graphql-yoga/render-graphiql').then(({ renderGraphiQL }) => renderGraphiQL(page)),
    cors: corsPolicy(options.corsOrigins ?? []),
    // The body limit is enforced in front of Yoga, by src/http.ts.
    maxRequestBodySize: false,
    plugins: [
      ...securityPlugins(limits),
      ...operations.plugins(client),
      ...(options.trustedDocuments ? [useTrustedDocuments(loadTrustedDocuments(options.trustedDocuments))] : []),
      useJit(),
      useUpstreamErrors(),
      useRequestErrorCodes(),
      useCacheControl(),
      ...(options.corsOrigins?.length ? [useVaryOrigin()] : []),
      useCompression(options.compressionMinBytes ?? DEFAULT_COMPRESSION_MIN_BYTES),
    ],
  });
  return { yoga, close: () => client.close() };
}
