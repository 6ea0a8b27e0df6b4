import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import { createGraphQLError, type GraphQLParams, type Plugin } from 'graphql-yoga';
import { ErrorCode } from '../errors.js';

export interface TrustedDocumentsOptions {
  /** Document id to document text, as `loadTrustedDocuments` (src/config/trusted-documents.ts) reads the manifests. */
  documents: ReadonlyMap<string, string>;
}

/**
 * Runs only the operations in the manifest, each sent by its `documentId` (POST body field or GET
 * query parameter, as the GraphQL-over-HTTP persisted documents proposal names it). Query text is
 * refused even when it matches a listed document: the point is that nothing unreviewed executes.
 */
export function useTrustedDocuments({ documents }: TrustedDocumentsOptions): Plugin {
  return usePersistedOperations({
    allowArbitraryOperations: false,
    extractPersistedOperationId: documentIdOf,
    getPersistedOperation: (id) => documents.get(id) ?? null,
    customErrors: {
      persistedQueryOnly: () => required('Only trusted documents run here: send the operation\'s "documentId" instead of "query".'),
      keyNotFound: () => required('Only trusted documents run here: the request has no "documentId".'),
      notFound: () =>
        createGraphQLError('This documentId is not a trusted document of this gateway: regenerate the client against its manifest.', {
          extensions: { code: ErrorCode.TRUSTED_DOCUMENT_NOT_FOUND, http: { status: 400 } },
        }),
    },
  });
}

function required(message: string) {
  return createGraphQLError(message, { extensions: { code: ErrorCode.TRUSTED_DOCUMENT_REQUIRED, http: { status: 400 } } });
}

/** Yoga's GET parser keeps only the four standard parameters, so a GET's documentId is read from the URL. */
function documentIdOf(params: GraphQLParams, request: Request): string | null {
  const fromBody = (params as GraphQLParams & { documentId?: unknown }).documentId;
  if (typeof fromBody === 'string' && fromBody !== '') return fromBody;
  if (request.method !== 'GET') return null;
  return new URL(request.url).searchParams.get('documentId') || null;
}
