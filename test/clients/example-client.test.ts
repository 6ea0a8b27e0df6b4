import { describe, expect } from 'vitest';
import {
  createFolder,
  createIdentityProvider,
  createService,
  createVmsClient,
  listAllApiKeys,
  streamApiKeys,
  updateCategory,
  updateHotspot,
  updateUser,
  VmsError,
} from '../../examples/client.js';
import { SANDBOX_AUTH } from '../support/auth.js';
import { gatewayOverSandbox } from '../support/fixtures.js';
import { CERTIFICATE } from '../support/records.js';

/** The example client, typed by the generated documents, against the gateway in front of the sandbox. */
const isoMs = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
const newId = expect.stringMatching(/^[a-z]+_[0-9a-f]{16}$/);

const it = gatewayOverSandbox().extend('client', { scope: 'file' }, async ({ gateway, sandbox }) =>
  createVmsClient({ url: gateway.url, token: sandbox.token }),
);

describe('example client (urql + generated TypedDocumentNodes)', () => {
  it('lists all 62 API keys by following endCursor, 25 per page', async ({ client }) => {
    const keys = await listAllApiKeys(client, 25);
    expect(keys.map((key) => key.id)).toEqual(Array.from({ length: 62 }, (_, i) => `ak_${String(i + 1).padStart(3, '0')}`));
    expect(keys.slice(0, 2)).toEqual([
      { id: 'ak_001', name: 'API key 1', type: 'api', permissions: [], createdTime: '2025-01-01T00:00:00.000Z' },
      { id: 'ak_002', name: 'API key 2', type: 'api', permissions: ['fetch'], createdTime: '2025-01-01T00:01:00.000Z' },
    ]);
  });

  it('streams the first 100 API keys: 25 as the first page arrives, then the rest, the same keys and page info as paging', async ({
    client,
    gateway,
  }) => {
    const parts: number[] = [];
    const streamed = await streamApiKeys(client, 100, (keys) => parts.push(keys.length));
    expect(streamed.keys).toEqual(await listAllApiKeys(client, 25));
    const plain = await gateway.graphql('{ apiKeys(first: 100) { pageInfo { hasNextPage endCursor } } }', { headers: SANDBOX_AUTH });
    expect({ hasNextPage: streamed.hasNextPage, endCursor: streamed.endCursor }).toEqual(
      (plain.body.data as { apiKeys: { pageInfo: unknown } }).apiKeys.pageInfo,
    );
    expect(parts[0]).toBe(25);
    expect(parts.at(-1)).toBe(62);
  });

  it('runs createFolder', async ({ client }) => {
    expect(await createFolder(client, { name: 'Client folder', clientMutationId: 'm-1' })).toEqual({
      clientMutationId: 'm-1',
      folder: { id: newId, name: 'Client folder', createdBy: 'usr_owner', createdTime: isoMs },
    });
  });

  it('runs createIdentityProvider', async ({ client }) => {
    const input = {
      name: 'Okta SSO',
      company: 'OKTA',
      type: 'SAML2',
      certificate: CERTIFICATE,
      entityId: 'urn:example:video-app',
      signinUrl: 'https://idp.example.com/sso/saml',
    } as const;
    expect(await createIdentityProvider(client, input)).toEqual({
      clientMutationId: null,
      identityProvider: {
        id: newId,
        name: 'Okta SSO',
        type: 'SAML2',
        company: 'OKTA',
        entityId: 'urn:example:video-app',
        signinUrl: 'https://idp.example.com/sso/saml',
        certificate: CERTIFICATE,
      },
    });
  });

  it('runs createService', async ({ client }) => {
    expect(await createService(client, { name: 'Channel', provider: 'YOUTUBE' })).toEqual({
      clientMutationId: null,
      service: { id: newId, name: 'Channel', provider: 'YOUTUBE' },
    });
  });

  it('runs updateCategory', async ({ client }) => {
    expect(await updateCategory(client, { id: 'cat_002', name: 'Renamed by the client' })).toEqual({
      clientMutationId: null,
      category: { id: 'cat_002', name: 'Renamed by the client', value: 'category-2', updatedBy: 'usr_owner', updatedTime: isoMs },
    });
  });

  it('runs updateHotspot', async ({ client }) => {
    expect(await updateHotspot(client, { videoId: 'vid_001', id: 'hs_002', opacity: 'OPAQUE', x: 30 })).toEqual({
      clientMutationId: null,
      hotspot: {
        id: 'hs_002',
        name: 'Hotspot 2',
        showAt: '00:00:05',
        hideAt: '00:00:15',
        x: 30,
        y: 50,
        action: 'LINK',
        link: 'https://example.com/hotspot-2',
        target: 'BLANK',
        opacity: 'OPAQUE',
      },
    });
  });

  it('runs updateUser', async ({ client }) => {
    expect(await updateUser(client, { id: 'usr_viewer', role: 'UPLOADER' })).toEqual({
      clientMutationId: null,
      user: { id: 'usr_viewer', name: 'Victor Viewer', email: 'viewer@example.com', role: 'UPLOADER' },
    });
  });

  it("surfaces the gateway's stable error code", async ({ client }) => {
    const failure = await updateCategory(client, { id: 'cat_999', name: 'Nobody' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(VmsError);
    expect((failure as VmsError).codes).toEqual(['NOT_FOUND']);
  });
});
