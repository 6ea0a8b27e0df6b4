/**
 * A typed client for the gateway, as a frontend would write one: urql's core client with the
 * documents `npm run schema:write` generates from examples/operations/*.graphql. Every variable and
 * result is typed from the schema, so an incompatible schema change fails `tsc`.
 */
import { Client, type CombinedError, fetchExchange, makeOperation, mapExchange, type PersistedDocument } from '@urql/core';
import { Kind } from 'graphql';
import { getFragmentData } from './generated/fragment-masking.js';
import {
  type ApiKeyFieldsFragment,
  ApiKeyFieldsFragmentDoc,
  ApiKeysDocument,
  type ApiKeysQuery,
  CategoryFieldsFragmentDoc,
  CreateFolderDocument,
  type CreateFolderInput,
  CreateIdentityProviderDocument,
  type CreateIdentityProviderInput,
  CreateServiceDocument,
  type CreateServiceInput,
  FolderFieldsFragmentDoc,
  HotspotFieldsFragmentDoc,
  IdentityProviderFieldsFragmentDoc,
  PageInfoFieldsFragmentDoc,
  ServiceFieldsFragmentDoc,
  StreamedApiKeysDocument,
  UpdateCategoryDocument,
  type UpdateCategoryInput,
  UpdateHotspotDocument,
  type UpdateHotspotInput,
  UpdateUserDocument,
  type UpdateUserInput,
  UserFieldsFragmentDoc,
} from './generated/graphql.js';

export interface VmsClientOptions {
  /** The gateway's endpoint, e.g. http://localhost:4000/graphql */
  url: string;
  /** Bearer token forwarded to the upstream. */
  token: string;
  /** Send operations by documentId only, for a gateway started with TRUSTED_DOCUMENTS. @default false */
  trustedDocuments?: boolean;
}

/** A GraphQL error answer, with the gateway's stable error codes. */
export class VmsError extends Error {
  readonly codes: string[];
  constructor(error: CombinedError) {
    super(error.message);
    this.codes = error.graphQLErrors.map((e) => String(e.extensions.code ?? 'UNKNOWN'));
  }
}

/**
 * The client preset puts each document's hash in `__meta__`; urql sends a document's `documentId`
 * instead of its text when the document has no definitions.
 */
const sendDocumentIds = mapExchange({
  onOperation(operation) {
    const hash = (operation.query as { __meta__?: { hash?: string } }).__meta__?.hash;
    if (hash === undefined) return operation;
    const query: PersistedDocument = { kind: Kind.DOCUMENT, definitions: [], documentId: hash };
    return makeOperation(operation.kind, { ...operation, query }, operation.context);
  },
});

export function createVmsClient({ url, token, trustedDocuments = false }: VmsClientOptions): Client {
  return new Client({
    url,
    exchanges: trustedDocuments ? [sendDocumentIds, fetchExchange] : [fetchExchange],
    // The Bearer token alone passes the gateway's CSRF check; the header keeps the client working behind a proxy that
    // turns a cookie into the token, where the gateway's docs ask for it (docs/clients.md#csrf).
    fetchOptions: { headers: { authorization: `Bearer ${token}`, 'x-graphql-yoga-csrf': '1' } },
    // Reads go out as GET and mutations as POST, as GraphQL over HTTP prescribes. Answers are
    // `private, no-store` whatever the method: each depends on the caller's token.
    preferGetMethod: 'within-url-limit',
    requestPolicy: 'network-only',
  });
}

function unwrap<T>(result: { data?: T; error?: CombinedError }): T {
  if (result.error) throw new VmsError(result.error);
  if (result.data === undefined) throw new Error('The gateway answered without data.');
  return result.data;
}

/** Every API key, following `pageInfo.endCursor` page by page. */
export async function listAllApiKeys(client: Client, pageSize = 25) {
  const keys = [];
  let after: string | null = null;
  for (;;) {
    const data: ApiKeysQuery = unwrap(await client.query(ApiKeysDocument, { first: pageSize, after }).toPromise());
    if (!data.apiKeys) throw new Error('apiKeys was null.');
    keys.push(...data.apiKeys.edges.map((edge) => getFragmentData(ApiKeyFieldsFragmentDoc, edge.node)));
    const pageInfo = getFragmentData(PageInfoFieldsFragmentDoc, data.apiKeys.pageInfo);
    if (!pageInfo.hasNextPage) return keys;
    after = pageInfo.endCursor ?? null;
  }
}

/**
 * The first `first` API keys, streamed (`StreamedApiKeys`: `edges @stream`, `pageInfo` deferred):
 * `onKeys` gets the keys received so far as each part arrives, the first 25 as soon as the
 * upstream's first page is in. Resolves with all of them and the page info once the stream ends.
 */
export function streamApiKeys(client: Client, first: number, onKeys: (keys: ApiKeyFieldsFragment[]) => void = () => {}) {
  return new Promise<{ keys: ApiKeyFieldsFragment[]; hasNextPage: boolean; endCursor: string | null }>((resolve, reject) => {
    const subscription = client.query(StreamedApiKeysDocument, { first }).subscribe((result) => {
      if (result.error) reject(new VmsError(result.error));
      const apiKeys = result.data?.apiKeys;
      const keys = (apiKeys?.edges ?? []).map((edge) => getFragmentData(ApiKeyFieldsFragmentDoc, edge.node));
      onKeys(keys);
      if (result.hasNext || result.error) return;
      if (!apiKeys?.pageInfo) return reject(new Error('The stream ended without pageInfo.'));
      const pageInfo = getFragmentData(PageInfoFieldsFragmentDoc, apiKeys.pageInfo);
      resolve({ keys, hasNextPage: pageInfo.hasNextPage, endCursor: pageInfo.endCursor ?? null });
      // Later, not now: urql still closes the body it has just read, and an unsubscribe in the same turn aborts that.
      setTimeout(() => subscription.unsubscribe());
    });
  });
}

/** The fields of a fragment-masked record, or an error when the mutation returned null. */
function required<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new Error(`${what} returned null.`);
  return value;
}

export async function createFolder(client: Client, input: CreateFolderInput) {
  const data = unwrap(await client.mutation(CreateFolderDocument, { input }).toPromise());
  const payload = required(data.createFolder, 'createFolder');
  return { clientMutationId: payload.clientMutationId, folder: getFragmentData(FolderFieldsFragmentDoc, payload.folder) };
}

export async function createIdentityProvider(client: Client, input: CreateIdentityProviderInput) {
  const data = unwrap(await client.mutation(CreateIdentityProviderDocument, { input }).toPromise());
  const payload = required(data.createIdentityProvider, 'createIdentityProvider');
  return {
    clientMutationId: payload.clientMutationId,
    identityProvider: getFragmentData(IdentityProviderFieldsFragmentDoc, payload.identityProvider),
  };
}

export async function createService(client: Client, input: CreateServiceInput) {
  const data = unwrap(await client.mutation(CreateServiceDocument, { input }).toPromise());
  const payload = required(data.createService, 'createService');
  return { clientMutationId: payload.clientMutationId, service: getFragmentData(ServiceFieldsFragmentDoc, payload.service) };
}

export async function updateCategory(client: Client, input: UpdateCategoryInput) {
  const data = unwrap(await client.mutation(UpdateCategoryDocument, { input }).toPromise());
  const payload = required(data.updateCategory, 'updateCategory');
  return { clientMutationId: payload.clientMutationId, category: getFragmentData(CategoryFieldsFragmentDoc, payload.category) };
}

export async function updateHotspot(client: Client, input: UpdateHotspotInput) {
  const data = unwrap(await client.mutation(UpdateHotspotDocument, { input }).toPromise());
  const payload = required(data.updateHotspot, 'updateHotspot');
  return { clientMutationId: payload.clientMutationId, hotspot: getFragmentData(HotspotFieldsFragmentDoc, payload.hotspot) };
}

export async function updateUser(client: Client, input: UpdateUserInput) {
  const data = unwrap(await client.mutation(UpdateUserDocument, { input }).toPromise());
  const payload = required(data.updateUser, 'updateUser');
  return { clientMutationId: payload.clientMutationId, user: getFragmentData(UserFieldsFragmentDoc, payload.user) };
}
