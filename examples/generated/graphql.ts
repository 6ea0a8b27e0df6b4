/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
/** A new folder. */
export type CreateFolderInput = {
  /** Any string; echoed unchanged in the payload so a client can match answers to requests. */
  clientMutationId?: string | number | null | undefined;
  /** Name, 1 to 40 characters. */
  name: string;
};

/** A new identity provider. */
export type CreateIdentityProviderInput = {
  /** The provider's public X.509 certificate in PEM form; sent as given. */
  certificate: string;
  /** Any string; echoed unchanged in the payload so a client can match answers to requests. */
  clientMutationId?: string | number | null | undefined;
  /** Vendor of the provider. */
  company: IdentityProviderCompany;
  /** The entity ID the application uses. */
  entityId: string;
  /** Name, 1 to 40 characters. */
  name: string;
  /** http(s) URL to which SAML2 requests are POSTed. */
  signinUrl: string;
  /** Sign-on protocol. */
  type: IdentityProviderType;
};

/** A new connected service. */
export type CreateServiceInput = {
  /** Any string; echoed unchanged in the payload so a client can match answers to requests. */
  clientMutationId?: string | number | null | undefined;
  /** Name, 1 to 40 characters. */
  name: string;
  /** The third party. */
  provider: ServiceProvider;
};

/** What happens when a viewer clicks a hotspot. */
export type HotspotAction =
  /** Open the hotspot's link. */
  | 'LINK';

/** How visible a hotspot is over the video. */
export type HotspotOpacity =
  /** Not drawn; still clickable. */
  | 'INVISIBLE'
  /** Drawn solid. */
  | 'OPAQUE'
  /** Drawn see-through. */
  | 'TRANSLUCENT';

/** Where a hotspot's link opens. */
export type HotspotTarget =
  /** In a new window or tab (upstream "_blank"). */
  | 'BLANK'
  /** In the parent browsing context (upstream "_parent"). */
  | 'PARENT';

/** Vendor of an identity provider. */
export type IdentityProviderCompany =
  /** Google Workspace. */
  | 'GOOGLE'
  /** Okta. */
  | 'OKTA';

/** Single sign-on protocol of an identity provider. */
export type IdentityProviderType =
  /** SAML 2.0. */
  | 'SAML2';

/** Third party behind a connected service. */
export type ServiceProvider =
  /** Campaign Monitor. */
  | 'CAMPAIGN_MONITOR'
  /** Mailchimp. */
  | 'MAILCHIMP'
  /** TikTok. */
  | 'TIKTOK'
  /** YouTube. */
  | 'YOUTUBE';

/** Fields of a category to change; omitted fields keep their value. */
export type UpdateCategoryInput = {
  /** Any string; echoed unchanged in the payload so a client can match answers to requests. */
  clientMutationId?: string | number | null | undefined;
  /** Id of the category. */
  id: string | number;
  /** New name, 1 to 40 characters. */
  name?: string | null | undefined;
  /** New value, 1 to 40 characters. */
  value?: string | null | undefined;
};

/** Fields of a hotspot to change; omitted fields keep their value. */
export type UpdateHotspotInput = {
  /** New click action. */
  action?: HotspotAction | null | undefined;
  /** Any string; echoed unchanged in the payload so a client can match answers to requests. */
  clientMutationId?: string | number | null | undefined;
  /** New disappearance time-code, HH:MM:SS. */
  hideAt?: string | null | undefined;
  /** Id of the hotspot. */
  id: string | number;
  /** New http(s) link, at most 100 characters. */
  link?: string | null | undefined;
  /** New label, at most 100 characters. */
  name?: string | null | undefined;
  /** New opacity. */
  opacity?: HotspotOpacity | null | undefined;
  /** New appearance time-code, HH:MM:SS. */
  showAt?: string | null | undefined;
  /** New link target. */
  target?: HotspotTarget | null | undefined;
  /** Id of the video the hotspot belongs to. */
  videoId: string | number;
  /** New horizontal position. */
  x?: number | null | undefined;
  /** New vertical position. */
  y?: number | null | undefined;
};

/** Fields of a user to change; omitted fields keep their value. The e-mail address cannot be changed. */
export type UpdateUserInput = {
  /** Any string; echoed unchanged in the payload so a client can match answers to requests. */
  clientMutationId?: string | number | null | undefined;
  /** Id of the user. */
  id: string | number;
  /** New full name, 1 to 40 characters. */
  name?: string | null | undefined;
  /** New role. */
  role?: UserRole | null | undefined;
};

/** What a user may do in the video library. */
export type UserRole =
  /** Administers the library. */
  | 'ADMIN'
  /** Owns the account. */
  | 'OWNER'
  /** Watches and uploads videos. */
  | 'UPLOADER'
  /** Watches videos. */
  | 'VIEWER';

export type ApiKeysQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type ApiKeysQuery = { apiKeys: { edges: Array<{ cursor: string, node: { ' $fragmentRefs'?: { 'ApiKeyFieldsFragment': ApiKeyFieldsFragment } } }>, pageInfo: { ' $fragmentRefs'?: { 'PageInfoFieldsFragment': PageInfoFieldsFragment } } } | null };

export type CreateFolderMutationVariables = Exact<{
  input: CreateFolderInput;
}>;


export type CreateFolderMutation = { createFolder: { clientMutationId: string | null, folder: { ' $fragmentRefs'?: { 'FolderFieldsFragment': FolderFieldsFragment } } } | null };

export type CreateIdentityProviderMutationVariables = Exact<{
  input: CreateIdentityProviderInput;
}>;


export type CreateIdentityProviderMutation = { createIdentityProvider: { clientMutationId: string | null, identityProvider: { ' $fragmentRefs'?: { 'IdentityProviderFieldsFragment': IdentityProviderFieldsFragment } } } | null };

export type CreateServiceMutationVariables = Exact<{
  input: CreateServiceInput;
}>;


export type CreateServiceMutation = { createService: { clientMutationId: string | null, service: { ' $fragmentRefs'?: { 'ServiceFieldsFragment': ServiceFieldsFragment } } } | null };

export type ApiKeyFieldsFragment = { id: string, name: string, type: string, permissions: Array<string>, createdTime: string } & { ' $fragmentName'?: 'ApiKeyFieldsFragment' };

export type CategoryFieldsFragment = { id: string, name: string, value: string, updatedBy: string, updatedTime: string } & { ' $fragmentName'?: 'CategoryFieldsFragment' };

export type FolderFieldsFragment = { id: string, name: string, createdBy: string, createdTime: string } & { ' $fragmentName'?: 'FolderFieldsFragment' };

export type HotspotFieldsFragment = { id: string, name: string, showAt: string, hideAt: string, x: number, y: number, action: HotspotAction, link: string, target: HotspotTarget, opacity: HotspotOpacity } & { ' $fragmentName'?: 'HotspotFieldsFragment' };

export type IdentityProviderFieldsFragment = { id: string, name: string, type: IdentityProviderType, company: IdentityProviderCompany, entityId: string, signinUrl: string, certificate: string } & { ' $fragmentName'?: 'IdentityProviderFieldsFragment' };

export type PageInfoFieldsFragment = { hasNextPage: boolean, hasPreviousPage: boolean, startCursor: string | null, endCursor: string | null } & { ' $fragmentName'?: 'PageInfoFieldsFragment' };

export type ServiceFieldsFragment = { id: string, name: string, provider: ServiceProvider } & { ' $fragmentName'?: 'ServiceFieldsFragment' };

export type UserFieldsFragment = { id: string, name: string, email: string, role: UserRole } & { ' $fragmentName'?: 'UserFieldsFragment' };

export type StreamedApiKeysQueryVariables = Exact<{
  first?: number | null | undefined;
}>;


export type StreamedApiKeysQuery = { apiKeys: { edges: Array<{ cursor: string, node: { ' $fragmentRefs'?: { 'ApiKeyFieldsFragment': ApiKeyFieldsFragment } } }> } & ({ pageInfo: { ' $fragmentRefs'?: { 'PageInfoFieldsFragment': PageInfoFieldsFragment } } } | { pageInfo?: never }) | null };

export type UpdateCategoryMutationVariables = Exact<{
  input: UpdateCategoryInput;
}>;


export type UpdateCategoryMutation = { updateCategory: { clientMutationId: string | null, category: { ' $fragmentRefs'?: { 'CategoryFieldsFragment': CategoryFieldsFragment } } } | null };

export type UpdateHotspotMutationVariables = Exact<{
  input: UpdateHotspotInput;
}>;


export type UpdateHotspotMutation = { updateHotspot: { clientMutationId: string | null, hotspot: { ' $fragmentRefs'?: { 'HotspotFieldsFragment': HotspotFieldsFragment } } } | null };

export type UpdateUserMutationVariables = Exact<{
  input: UpdateUserInput;
}>;


export type UpdateUserMutation = { updateUser: { clientMutationId: string | null, user: { ' $fragmentRefs'?: { 'UserFieldsFragment': UserFieldsFragment } } } | null };

export const ApiKeyFieldsFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ApiKeyFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ApiKey"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"permissions"}},{"kind":"Field","name":{"kind":"Name","value":"createdTime"}}]}}]} as unknown as DocumentNode<ApiKeyFieldsFragment, unknown>;
export const CategoryFieldsFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"CategoryFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Category"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"updatedBy"}},{"kind":"Field","name":{"kind":"Name","value":"updatedTime"}}]}}]} as unknown as DocumentNode<CategoryFieldsFragment, unknown>;
export const FolderFieldsFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"FolderFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Folder"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"createdBy"}},{"kind":"Field","name":{"kind":"Name","value":"createdTime"}}]}}]} as unknown as DocumentNode<FolderFieldsFragment, unknown>;
export const HotspotFieldsFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"HotspotFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Hotspot"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"showAt"}},{"kind":"Field","name":{"kind":"Name","value":"hideAt"}},{"kind":"Field","name":{"kind":"Name","value":"x"}},{"kind":"Field","name":{"kind":"Name","value":"y"}},{"kind":"Field","name":{"kind":"Name","value":"action"}},{"kind":"Field","name":{"kind":"Name","value":"link"}},{"kind":"Field","name":{"kind":"Name","value":"target"}},{"kind":"Field","name":{"kind":"Name","value":"opacity"}}]}}]} as unknown as DocumentNode<HotspotFieldsFragment, unknown>;
export const IdentityProviderFieldsFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"IdentityProviderFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"IdentityProvider"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"company"}},{"kind":"Field","name":{"kind":"Name","value":"entityId"}},{"kind":"Field","name":{"kind":"Name","value":"signinUrl"}},{"kind":"Field","name":{"kind":"Name","value":"certificate"}}]}}]} as unknown as DocumentNode<IdentityProviderFieldsFragment, unknown>;
export const PageInfoFieldsFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"PageInfoFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"PageInfo"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"hasPreviousPage"}},{"kind":"Field","name":{"kind":"Name","value":"startCursor"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}}]} as unknown as DocumentNode<PageInfoFieldsFragment, unknown>;
export const ServiceFieldsFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ServiceFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Service"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"provider"}}]}}]} as unknown as DocumentNode<ServiceFieldsFragment, unknown>;
export const UserFieldsFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"UserFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"User"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"email"}},{"kind":"Field","name":{"kind":"Name","value":"role"}}]}}]} as unknown as DocumentNode<UserFieldsFragment, unknown>;
export const ApiKeysDocument = {"__meta__":{"hash":"sha256:65f1688d851fc6ba26f2c400ca9c22a7e6e87fccfb21ed093e09c028ce920264"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"ApiKeys"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"apiKeys"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"ApiKeyFields"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"PageInfoFields"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ApiKeyFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ApiKey"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"permissions"}},{"kind":"Field","name":{"kind":"Name","value":"createdTime"}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"PageInfoFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"PageInfo"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"hasPreviousPage"}},{"kind":"Field","name":{"kind":"Name","value":"startCursor"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}}]} as unknown as DocumentNode<ApiKeysQuery, ApiKeysQueryVariables>;
export const CreateFolderDocument = {"__meta__":{"hash":"sha256:28c790b472f283d0546a4bd3b4642effac5ed03d0f974f88f65b11e3284f0709"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"CreateFolder"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"CreateFolderInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"createFolder"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"clientMutationId"}},{"kind":"Field","name":{"kind":"Name","value":"folder"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"FolderFields"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"FolderFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Folder"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"createdBy"}},{"kind":"Field","name":{"kind":"Name","value":"createdTime"}}]}}]} as unknown as DocumentNode<CreateFolderMutation, CreateFolderMutationVariables>;
export const CreateIdentityProviderDocument = {"__meta__":{"hash":"sha256:5d8e94002612400e3104d44e3a97478df541fe9a83a6dbda5831d83445692834"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"CreateIdentityProvider"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"CreateIdentityProviderInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"createIdentityProvider"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"clientMutationId"}},{"kind":"Field","name":{"kind":"Name","value":"identityProvider"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"IdentityProviderFields"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"IdentityProviderFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"IdentityProvider"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"company"}},{"kind":"Field","name":{"kind":"Name","value":"entityId"}},{"kind":"Field","name":{"kind":"Name","value":"signinUrl"}},{"kind":"Field","name":{"kind":"Name","value":"certificate"}}]}}]} as unknown as DocumentNode<CreateIdentityProviderMutation, CreateIdentityProviderMutationVariables>;
export const CreateServiceDocument = {"__meta__":{"hash":"sha256:dbfe9a9c9395a94d313f91d9c12dbdf13d2c04167f9a8e0a6ccc3ab1d78a3eeb"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"CreateService"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"CreateServiceInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"createService"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"clientMutationId"}},{"kind":"Field","name":{"kind":"Name","value":"service"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"ServiceFields"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ServiceFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Service"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"provider"}}]}}]} as unknown as DocumentNode<CreateServiceMutation, CreateServiceMutationVariables>;
export const StreamedApiKeysDocument = {"__meta__":{"hash":"sha256:19ee864a1496e47db356a05588c156562b6c58849a41a301c5f850f6187f096d"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"StreamedApiKeys"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"apiKeys"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"edges"},"directives":[{"kind":"Directive","name":{"kind":"Name","value":"stream"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"initialCount"},"value":{"kind":"IntValue","value":"25"}}]}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"ApiKeyFields"}}]}}]}},{"kind":"InlineFragment","directives":[{"kind":"Directive","name":{"kind":"Name","value":"defer"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"PageInfoFields"}}]}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ApiKeyFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ApiKey"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"permissions"}},{"kind":"Field","name":{"kind":"Name","value":"createdTime"}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"PageInfoFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"PageInfo"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"hasPreviousPage"}},{"kind":"Field","name":{"kind":"Name","value":"startCursor"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}}]} as unknown as DocumentNode<StreamedApiKeysQuery, StreamedApiKeysQueryVariables>;
export const UpdateCategoryDocument = {"__meta__":{"hash":"sha256:ce18f2d38c1aec88d918f0a81f6fcbce29d03cf246c961a2d8d1bc2449b9ff2d"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"UpdateCategory"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"UpdateCategoryInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"updateCategory"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"clientMutationId"}},{"kind":"Field","name":{"kind":"Name","value":"category"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"CategoryFields"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"CategoryFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Category"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"value"}},{"kind":"Field","name":{"kind":"Name","value":"updatedBy"}},{"kind":"Field","name":{"kind":"Name","value":"updatedTime"}}]}}]} as unknown as DocumentNode<UpdateCategoryMutation, UpdateCategoryMutationVariables>;
export const UpdateHotspotDocument = {"__meta__":{"hash":"sha256:f26413fb5af3fe143ba95f770eb543cbc60e7e94b87a8a9fddc37e9b19591ce2"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"UpdateHotspot"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"UpdateHotspotInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"updateHotspot"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"clientMutationId"}},{"kind":"Field","name":{"kind":"Name","value":"hotspot"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"HotspotFields"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"HotspotFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Hotspot"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"showAt"}},{"kind":"Field","name":{"kind":"Name","value":"hideAt"}},{"kind":"Field","name":{"kind":"Name","value":"x"}},{"kind":"Field","name":{"kind":"Name","value":"y"}},{"kind":"Field","name":{"kind":"Name","value":"action"}},{"kind":"Field","name":{"kind":"Name","value":"link"}},{"kind":"Field","name":{"kind":"Name","value":"target"}},{"kind":"Field","name":{"kind":"Name","value":"opacity"}}]}}]} as unknown as DocumentNode<UpdateHotspotMutation, UpdateHotspotMutationVariables>;
export const UpdateUserDocument = {"__meta__":{"hash":"sha256:7e11a13b1e18de76212d7f8625a93785577d382769ff1b01780b57fc97f5d5e9"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"UpdateUser"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"UpdateUserInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"updateUser"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"clientMutationId"}},{"kind":"Field","name":{"kind":"Name","value":"user"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"UserFields"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"UserFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"User"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"email"}},{"kind":"Field","name":{"kind":"Name","value":"role"}}]}}]} as unknown as DocumentNode<UpdateUserMutation, UpdateUserMutationVariables>;