/* eslint-disable */
import * as types from './graphql.js';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "query ApiKeys($first: Int, $after: String) {\n  apiKeys(first: $first, after: $after) {\n    edges {\n      cursor\n      node {\n        ...ApiKeyFields\n      }\n    }\n    pageInfo {\n      ...PageInfoFields\n    }\n  }\n}": typeof types.ApiKeysDocument,
    "mutation CreateFolder($input: CreateFolderInput!) {\n  createFolder(input: $input) {\n    clientMutationId\n    folder {\n      ...FolderFields\n    }\n  }\n}": typeof types.CreateFolderDocument,
    "mutation CreateIdentityProvider($input: CreateIdentityProviderInput!) {\n  createIdentityProvider(input: $input) {\n    clientMutationId\n    identityProvider {\n      ...IdentityProviderFields\n    }\n  }\n}": typeof types.CreateIdentityProviderDocument,
    "mutation CreateService($input: CreateServiceInput!) {\n  createService(input: $input) {\n    clientMutationId\n    service {\n      ...ServiceFields\n    }\n  }\n}": typeof types.CreateServiceDocument,
    "fragment ApiKeyFields on ApiKey {\n  id\n  name\n  type\n  permissions\n  createdTime\n}\n\nfragment CategoryFields on Category {\n  id\n  name\n  value\n  updatedBy\n  updatedTime\n}\n\nfragment FolderFields on Folder {\n  id\n  name\n  createdBy\n  createdTime\n}\n\nfragment HotspotFields on Hotspot {\n  id\n  name\n  showAt\n  hideAt\n  x\n  y\n  action\n  link\n  target\n  opacity\n}\n\nfragment IdentityProviderFields on IdentityProvider {\n  id\n  name\n  type\n  company\n  entityId\n  signinUrl\n  certificate\n}\n\nfragment PageInfoFields on PageInfo {\n  hasNextPage\n  hasPreviousPage\n  startCursor\n  endCursor\n}\n\nfragment ServiceFields on Service {\n  id\n  name\n  provider\n}\n\nfragment UserFields on User {\n  id\n  name\n  email\n  role\n}": typeof types.ApiKeyFieldsFragmentDoc,
    "query StreamedApiKeys($first: Int) {\n  apiKeys(first: $first) {\n    edges @stream(initialCount: 25) {\n      cursor\n      node {\n        ...ApiKeyFields\n      }\n    }\n    ... @defer {\n      pageInfo {\n        ...PageInfoFields\n      }\n    }\n  }\n}": typeof types.StreamedApiKeysDocument,
    "mutation UpdateCategory($input: UpdateCategoryInput!) {\n  updateCategory(input: $input) {\n    clientMutationId\n    category {\n      ...CategoryFields\n    }\n  }\n}": typeof types.UpdateCategoryDocument,
    "mutation UpdateHotspot($input: UpdateHotspotInput!) {\n  updateHotspot(input: $input) {\n    clientMutationId\n    hotspot {\n      ...HotspotFields\n    }\n  }\n}": typeof types.UpdateHotspotDocument,
    "mutation UpdateUser($input: UpdateUserInput!) {\n  updateUser(input: $input) {\n    clientMutationId\n    user {\n      ...UserFields\n    }\n  }\n}": typeof types.UpdateUserDocument,
};
const documents: Documents = {
    "query ApiKeys($first: Int, $after: String) {\n  apiKeys(first: $first, after: $after) {\n    edges {\n      cursor\n      node {\n        ...ApiKeyFields\n      }\n    }\n    pageInfo {\n      ...PageInfoFields\n    }\n  }\n}": types.ApiKeysDocument,
    "mutation CreateFolder($input: CreateFolderInput!) {\n  createFolder(input: $input) {\n    clientMutationId\n    folder {\n      ...FolderFields\n    }\n  }\n}": types.CreateFolderDocument,
    "mutation CreateIdentityProvider($input: CreateIdentityProviderInput!) {\n  createIdentityProvider(input: $input) {\n    clientMutationId\n    identityProvider {\n      ...IdentityProviderFields\n    }\n  }\n}": types.CreateIdentityProviderDocument,
    "mutation CreateService($input: CreateServiceInput!) {\n  createService(input: $input) {\n    clientMutationId\n    service {\n      ...ServiceFields\n    }\n  }\n}": types.CreateServiceDocument,
    "fragment ApiKeyFields on ApiKey {\n  id\n  name\n  type\n  permissions\n  createdTime\n}\n\nfragment CategoryFields on Category {\n  id\n  name\n  value\n  updatedBy\n  updatedTime\n}\n\nfragment FolderFields on Folder {\n  id\n  name\n  createdBy\n  createdTime\n}\n\nfragment HotspotFields on Hotspot {\n  id\n  name\n  showAt\n  hideAt\n  x\n  y\n  action\n  link\n  target\n  opacity\n}\n\nfragment IdentityProviderFields on IdentityProvider {\n  id\n  name\n  type\n  company\n  entityId\n  signinUrl\n  certificate\n}\n\nfragment PageInfoFields on PageInfo {\n  hasNextPage\n  hasPreviousPage\n  startCursor\n  endCursor\n}\n\nfragment ServiceFields on Service {\n  id\n  name\n  provider\n}\n\nfragment UserFields on User {\n  id\n  name\n  email\n  role\n}": types.ApiKeyFieldsFragmentDoc,
    "query StreamedApiKeys($first: Int) {\n  apiKeys(first: $first) {\n    edges @stream(initialCount: 25) {\n      cursor\n      node {\n        ...ApiKeyFields\n      }\n    }\n    ... @defer {\n      pageInfo {\n        ...PageInfoFields\n      }\n    }\n  }\n}": types.StreamedApiKeysDocument,
    "mutation UpdateCategory($input: UpdateCategoryInput!) {\n  updateCategory(input: $input) {\n    clientMutationId\n    category {\n      ...CategoryFields\n    }\n  }\n}": types.UpdateCategoryDocument,
    "mutation UpdateHotspot($input: UpdateHotspotInput!) {\n  updateHotspot(input: $input) {\n    clientMutationId\n    hotspot {\n      ...HotspotFields\n    }\n  }\n}": types.UpdateHotspotDocument,
    "mutation UpdateUser($input: UpdateUserInput!) {\n  updateUser(input: $input) {\n    clientMutationId\n    user {\n      ...UserFields\n    }\n  }\n}": types.UpdateUserDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query ApiKeys($first: Int, $after: String) {\n  apiKeys(first: $first, after: $after) {\n    edges {\n      cursor\n      node {\n        ...ApiKeyFields\n      }\n    }\n    pageInfo {\n      ...PageInfoFields\n    }\n  }\n}"): (typeof documents)["query ApiKeys($first: Int, $after: String) {\n  apiKeys(first: $first, after: $after) {\n    edges {\n      cursor\n      node {\n        ...ApiKeyFields\n      }\n    }\n    pageInfo {\n      ...PageInfoFields\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation CreateFolder($input: CreateFolderInput!) {\n  createFolder(input: $input) {\n    clientMutationId\n    folder {\n      ...FolderFields\n    }\n  }\n}"): (typeof documents)["mutation CreateFolder($input: CreateFolderInput!) {\n  createFolder(input: $input) {\n    clientMutationId\n    folder {\n      ...FolderFields\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation CreateIdentityProvider($input: CreateIdentityProviderInput!) {\n  createIdentityProvider(input: $input) {\n    clientMutationId\n    identityProvider {\n      ...IdentityProviderFields\n    }\n  }\n}"): (typeof documents)["mutation CreateIdentityProvider($input: CreateIdentityProviderInput!) {\n  createIdentityProvider(input: $input) {\n    clientMutationId\n    identityProvider {\n      ...IdentityProviderFields\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation CreateService($input: CreateServiceInput!) {\n  createService(input: $input) {\n    clientMutationId\n    service {\n      ...ServiceFields\n    }\n  }\n}"): (typeof documents)["mutation CreateService($input: CreateServiceInput!) {\n  createService(input: $input) {\n    clientMutationId\n    service {\n      ...ServiceFields\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "fragment ApiKeyFields on ApiKey {\n  id\n  name\n  type\n  permissions\n  createdTime\n}\n\nfragment CategoryFields on Category {\n  id\n  name\n  value\n  updatedBy\n  updatedTime\n}\n\nfragment FolderFields on Folder {\n  id\n  name\n  createdBy\n  createdTime\n}\n\nfragment HotspotFields on Hotspot {\n  id\n  name\n  showAt\n  hideAt\n  x\n  y\n  action\n  link\n  target\n  opacity\n}\n\nfragment IdentityProviderFields on IdentityProvider {\n  id\n  name\n  type\n  company\n  entityId\n  signinUrl\n  certificate\n}\n\nfragment PageInfoFields on PageInfo {\n  hasNextPage\n  hasPreviousPage\n  startCursor\n  endCursor\n}\n\nfragment ServiceFields on Service {\n  id\n  name\n  provider\n}\n\nfragment UserFields on User {\n  id\n  name\n  email\n  role\n}"): (typeof documents)["fragment ApiKeyFields on ApiKey {\n  id\n  name\n  type\n  permissions\n  createdTime\n}\n\nfragment CategoryFields on Category {\n  id\n  name\n  value\n  updatedBy\n  updatedTime\n}\n\nfragment FolderFields on Folder {\n  id\n  name\n  createdBy\n  createdTime\n}\n\nfragment HotspotFields on Hotspot {\n  id\n  name\n  showAt\n  hideAt\n  x\n  y\n  action\n  link\n  target\n  opacity\n}\n\nfragment IdentityProviderFields on IdentityProvider {\n  id\n  name\n  type\n  company\n  entityId\n  signinUrl\n  certificate\n}\n\nfragment PageInfoFields on PageInfo {\n  hasNextPage\n  hasPreviousPage\n  startCursor\n  endCursor\n}\n\nfragment ServiceFields on Service {\n  id\n  name\n  provider\n}\n\nfragment UserFields on User {\n  id\n  name\n  email\n  role\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query StreamedApiKeys($first: Int) {\n  apiKeys(first: $first) {\n    edges @stream(initialCount: 25) {\n      cursor\n      node {\n        ...ApiKeyFields\n      }\n    }\n    ... @defer {\n      pageInfo {\n        ...PageInfoFields\n      }\n    }\n  }\n}"): (typeof documents)["query StreamedApiKeys($first: Int) {\n  apiKeys(first: $first) {\n    edges @stream(initialCount: 25) {\n      cursor\n      node {\n        ...ApiKeyFields\n      }\n    }\n    ... @defer {\n      pageInfo {\n        ...PageInfoFields\n      }\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation UpdateCategory($input: UpdateCategoryInput!) {\n  updateCategory(input: $input) {\n    clientMutationId\n    category {\n      ...CategoryFields\n    }\n  }\n}"): (typeof documents)["mutation UpdateCategory($input: UpdateCategoryInput!) {\n  updateCategory(input: $input) {\n    clientMutationId\n    category {\n      ...CategoryFields\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation UpdateHotspot($input: UpdateHotspotInput!) {\n  updateHotspot(input: $input) {\n    clientMutationId\n    hotspot {\n      ...HotspotFields\n    }\n  }\n}"): (typeof documents)["mutation UpdateHotspot($input: UpdateHotspotInput!) {\n  updateHotspot(input: $input) {\n    clientMutationId\n    hotspot {\n      ...HotspotFields\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation UpdateUser($input: UpdateUserInput!) {\n  updateUser(input: $input) {\n    clientMutationId\n    user {\n      ...UserFields\n    }\n  }\n}"): (typeof documents)["mutation UpdateUser($input: UpdateUserInput!) {\n  updateUser(input: $input) {\n    clientMutationId\n    user {\n      ...UserFields\n    }\n  }\n}"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;