import { describe, expect } from 'vitest';
import { SANDBOX_AUTH } from '../support/auth.js';
import { gatewayOverSandbox } from '../support/fixtures.js';
import { CERTIFICATE } from '../support/records.js';

/** The gateway in front of the embedded sandbox, as `npm start` runs it. */

const isoMs = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

const it = gatewayOverSandbox();

const ids = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => ({ id: `ak_${String(from + i).padStart(3, '0')}` }));

describe('apiKeys against the sandbox', () => {
  it('pages through all 62 keys with after: endCursor, 25 at a time', async ({ gateway }) => {
    const seen: Array<{ id: string }> = [];
    const pages: boolean[] = [];
    let after: string | null = null;
    do {
      const answer = await gateway.graphql(
        'query ($after: String) { apiKeys(after: $after) { nodes { id } pageInfo { hasNextPage endCursor } } }',
        {
          headers: SANDBOX_AUTH,
          variables: { after },
        },
      );
      const { nodes, pageInfo } = (answer.body.data as any).apiKeys;
      seen.push(...nodes);
      pages.push(pageInfo.hasNextPage);
      after = pageInfo.hasNextPage ? pageInfo.endCursor : null;
    } while (after);
    expect(seen).toEqual(ids(1, 62));
    expect(pages).toEqual([true, true, false]);
  });

  it('serves first: 100 by chaining pages up to the end of the list', async ({ gateway }) => {
    const answer = await gateway.graphql('{ apiKeys(first: 100) { nodes { id } pageInfo { hasNextPage hasPreviousPage } } }', {
      headers: SANDBOX_AUTH,
    });
    expect((answer.body.data as any).apiKeys).toEqual({ nodes: ids(1, 62), pageInfo: { hasNextPage: false, hasPreviousPage: false } });
  });

  it('resumes from the middle of an upstream page', async ({ gateway }) => {
    const first = await gateway.graphql('{ apiKeys(first: 30) { edges { cursor } } }', { headers: SANDBOX_AUTH });
    const cursor = (first.body.data as any).apiKeys.edges[11].cursor;
    const answer = await gateway.graphql(
      `{ apiKeys(first: 20, after: "${cursor}") { nodes { id } pageInfo { hasNextPage hasPreviousPage } } }`,
      { headers: SANDBOX_AUTH },
    );
    expect((answer.body.data as any).apiKeys).toEqual({ nodes: ids(13, 32), pageInfo: { hasNextPage: true, hasPreviousPage: true } });
  });

  it("maps the real service's permission strings", async ({ gateway }) => {
    const answer = await gateway.graphql('{ apiKeys(first: 2) { nodes { id name type permissions createdBy createdTime } } }', {
      headers: SANDBOX_AUTH,
    });
    expect((answer.body.data as any).apiKeys.nodes).toEqual([
      { id: 'ak_001', name: 'API key 1', type: 'api', permissions: [], createdBy: 'usr_owner', createdTime: '2025-01-01T00:00:00.000Z' },
      {
        id: 'ak_002',
        name: 'API key 2',
        type: 'api',
        permissions: ['fetch'],
        createdBy: 'usr_owner',
        createdTime: '2025-01-01T00:01:00.000Z',
      },
    ]);
  });
});

describe('mutations against the sandbox', () => {
  it('updateHotspot', async ({ gateway }) => {
    const answer = await gateway.graphql(
      'mutation { updateHotspot(input: { videoId: "vid_001", id: "hs_002", name: "Shop", hideAt: "00:01:00", x: 80, target: PARENT, opacity: OPAQUE }) { hotspot { id name showAt hideAt x y action link target opacity } } }',
      { headers: SANDBOX_AUTH },
    );
    expect(answer.body).toEqual({
      data: {
        updateHotspot: {
          hotspot: {
            id: 'hs_002',
            name: 'Shop',
            showAt: '00:00:05',
            hideAt: '00:01:00',
            x: 80,
            y: 50,
            action: 'LINK',
            link: 'https://example.com/hotspot-2',
            target: 'PARENT',
            opacity: 'OPAQUE',
          },
        },
      },
    });
  });

  it("createIdentityProvider keeps the certificate's line breaks", async ({ gateway }) => {
    const answer = await gateway.graphql(
      'mutation ($input: CreateIdentityProviderInput!) { createIdentityProvider(input: $input) { clientMutationId identityProvider { id name company type certificate entityId signinUrl createdBy createdTime updatedBy updatedTime } } }',
      {
        headers: SANDBOX_AUTH,
        variables: {
          input: {
            name: 'Corporate Okta',
            company: 'OKTA',
            type: 'SAML2',
            certificate: CERTIFICATE,
            entityId: 'urn:vms',
            signinUrl: 'https://okta.example/sso',
            clientMutationId: 'c1',
          },
        },
      },
    );
    expect(answer.body).toEqual({
      data: {
        createIdentityProvider: {
          clientMutationId: 'c1',
          identityProvider: {
            id: expect.stringMatching(/^idp_/),
            name: 'Corporate Okta',
            company: 'OKTA',
            type: 'SAML2',
            certificate: CERTIFICATE,
            entityId: 'urn:vms',
            signinUrl: 'https://okta.example/sso',
            createdBy: 'usr_owner',
            createdTime: isoMs,
            updatedBy: 'usr_owner',
            updatedTime: isoMs,
          },
        },
      },
    });
  });

  it('updateCategory, updateUser, createService and createFolder in one operation', async ({ gateway }) => {
    const answer = await gateway.graphql(
      `mutation {
        updateCategory(input: { id: "cat_002", name: "Documentaries" }) { category { id name value updatedBy } }
        updateUser(input: { id: "usr_viewer", role: UPLOADER }) { user { id name email role } }
        createService(input: { name: "Our channel", provider: YOUTUBE }) { service { id name provider } }
        createFolder(input: { name: "Launch" }) { folder { id name createdBy } }
      }`,
      { headers: SANDBOX_AUTH },
    );
    expect(answer.body).toEqual({
      data: {
        updateCategory: { category: { id: 'cat_002', name: 'Documentaries', value: 'category-2', updatedBy: 'usr_owner' } },
        updateUser: { user: { id: 'usr_viewer', name: 'Victor Viewer', email: 'viewer@example.com', role: 'UPLOADER' } },
        createService: { service: { id: expect.stringMatching(/^svc_/), name: 'Our channel', provider: 'YOUTUBE' } },
        createFolder: { folder: { id: expect.stringMatching(/^fld_/), name: 'Launch', createdBy: 'usr_owner' } },
      },
    });
  });

  it("unknown ids are NOT_FOUND with the upstream's own message", async ({ gateway }) => {
    const answer = await gateway.graphql(
      'mutation { updateHotspot(input: { videoId: "vid_001", id: "hs_999", name: "x" }) { hotspot { id } } }',
      { headers: SANDBOX_AUTH },
    );
    expect(answer.body).toEqual({
      data: { updateHotspot: null },
      errors: [
        {
          message: 'Hotspot hs_999 not found on video vid_001',
          locations: [{ line: 1, column: 12 }],
          path: ['updateHotspot'],
          extensions: {
            code: 'NOT_FOUND',
            upstream: { status: 404, error: { code: 'not_found', message: 'Hotspot hs_999 not found on video vid_001' } },
          },
        },
      ],
    });
  });
});
