import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { createVmsClient, listAllApiKeys, streamApiKeys, updateCategory } from '../../examples/client.js';
import manifest from '../../examples/generated/persisted-documents.json' with { type: 'json' };
import { loadSettings as loadConfig } from '../../src/config/load.js';
import { loadTrustedDocuments } from '../../src/config/trusted-documents.js';
import { createGateway } from '../../src/gateway.js';
import { AUTH } from '../support/auth.js';
import { spawnGateway } from '../support/child-gateway.js';
import { gatewayOverSandbox, gatewayOverUpstream, test as it } from '../support/fixtures.js';
import { envelope } from '../support/recording-upstream.js';
import { AUDIT_FIELDS, apiKeyRecord } from '../support/records.js';

const MANIFEST = new URL('../../examples/generated/persisted-documents.json', import.meta.url).pathname;
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...AUTH };
const apiKeysId = Object.keys(manifest).find((id) => manifest[id as keyof typeof manifest].includes('query ApiKeys'))!;
const updateCategoryId = Object.keys(manifest).find((id) => manifest[id as keyof typeof manifest].includes('mutation UpdateCategory'))!;

async function post(url: string, body: unknown) {
  const response = await fetch(url, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

const enforcing = gatewayOverUpstream(undefined, { trustedDocuments: [MANIFEST] });
const enforcingOverSandbox = gatewayOverSandbox({ trustedDocuments: [MANIFEST] });

describe('TRUSTED_DOCUMENTS set', () => {
  const it = enforcing;

  it('runs a manifest document sent by documentId (POST) and forwards exactly its upstream call', async ({ gateway, upstream }) => {
    upstream.answer(() => ({ body: envelope([apiKeyRecord(1)]) }));
    const answer = await post(gateway.url, { documentId: apiKeysId, variables: { first: 1 } });
    expect(upstream.requests.map((r) => `${r.method} ${r.path} ${JSON.stringify(r.query)}`)).toEqual(['GET /v2/api_keys {"limit":"1"}']);
    expect(answer).toEqual({
      status: 200,
      body: {
        data: {
          apiKeys: {
            edges: [
              {
                cursor: expect.any(String),
                node: { id: 'k1', name: 'Key 1', type: 'api', permissions: [], createdTime: AUDIT_FIELDS.createdTime },
              },
            ],
            pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: expect.any(String), endCursor: expect.any(String) },
          },
        },
      },
    });
  });

  it('runs a manifest query sent by documentId in a GET URL', async ({ gateway, upstream }) => {
    upstream.answer(() => ({ body: envelope([]) }));
    const url = `${gateway.url}?documentId=${encodeURIComponent(apiKeysId)}&variables=${encodeURIComponent('{"first":3}')}`;
    const response = await fetch(url, { headers: { accept: 'application/graphql-response+json', 'x-graphql-yoga-csrf': '1', ...AUTH } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      data: { apiKeys: { edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null } } },
    });
  });

  it.for([
    ['query text, even of a listed operation', { query: manifest[apiKeysId as keyof typeof manifest] }, 'TRUSTED_DOCUMENT_REQUIRED'],
    ['arbitrary query text', { query: '{ apiKeys(first: 100) { nodes { id } } }' }, 'TRUSTED_DOCUMENT_REQUIRED'],
    ['neither query nor documentId', { variables: {} }, 'TRUSTED_DOCUMENT_REQUIRED'],
    ['an unknown documentId', { documentId: `sha256:${'0'.repeat(64)}` }, 'TRUSTED_DOCUMENT_NOT_FOUND'],
  ])('rejects %s with 400 and reaches no upstream', async ([_, body, code], { gateway, upstream }) => {
    const answer = await post(gateway.url, body);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ errors: [{ message: expect.any(String), extensions: { code } }] });
    expect(upstream.requests).toEqual([]);
  });

  it('never runs a listed mutation sent by GET', async ({ gateway, upstream }) => {
    const url = `${gateway.url}?documentId=${encodeURIComponent(updateCategoryId)}&variables=${encodeURIComponent('{"input":{"id":"c1","name":"x"}}')}`;
    const response = await fetch(url, { headers: { accept: 'application/graphql-response+json', 'x-graphql-yoga-csrf': '1', ...AUTH } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(upstream.requests).toEqual([]);
  });
});

describe('the example client in trusted-documents mode, against the sandbox', () => {
  const it = enforcingOverSandbox;

  it('pages through API keys and runs a mutation, sending only document ids', async ({ gateway, sandbox }) => {
    const client = createVmsClient({ url: gateway.url, token: sandbox.token, trustedDocuments: true });
    const keys = await listAllApiKeys(client, 25);
    expect(keys).toHaveLength(62);
    expect(keys[61]).toEqual({
      id: 'ak_062',
      name: 'API key 62',
      type: 'api',
      permissions: ['fetch'],
      createdTime: '2025-01-01T01:01:00.000Z',
    });
    const { category } = await updateCategory(client, { id: 'cat_003', value: 'trusted' });
    expect(category).toMatchObject({ id: 'cat_003', name: 'Category 3', value: 'trusted' });
  });

  it('streams a trusted document that carries @stream and @defer, sent by its id', async ({ gateway, sandbox }) => {
    const client = createVmsClient({ url: gateway.url, token: sandbox.token, trustedDocuments: true });
    const parts: number[] = [];
    const streamed = await streamApiKeys(client, 100, (keys) => parts.push(keys.length));
    expect(streamed.keys).toEqual(await listAllApiKeys(client, 25));
    expect(parts[0]).toBe(25);
  });

  it('the same client sending query text is refused', async ({ gateway, sandbox }) => {
    const client = createVmsClient({ url: gateway.url, token: sandbox.token });
    await expect(listAllApiKeys(client)).rejects.toMatchObject({ codes: ['TRUSTED_DOCUMENT_REQUIRED'] });
  });
});

describe('TRUSTED_DOCUMENTS unset', () => {
  it('accepts any operation as query text', async ({ start }) => {
    const upstream = await start.upstream(() => ({ body: envelope([]) }));
    const gateway = await start.gateway({ upstreamUrl: new URL(upstream.url) });
    const answer = await gateway.graphql('{ apiKeys(first: 7) { nodes { id } } }', { headers: AUTH });
    expect(answer.body).toEqual({ data: { apiKeys: { nodes: [] } } });
    expect(upstream.requests.map((r) => r.query)).toEqual([{ limit: '7' }]);
  });
});

describe('configuration', () => {
  it('reads the manifest path from TRUSTED_DOCUMENTS', () => {
    expect(loadConfig({ TRUSTED_DOCUMENTS: MANIFEST }).trustedDocuments).toEqual([MANIFEST]);
    expect(loadConfig({ TRUSTED_DOCUMENTS: ' web.json , admin/ ' }).trustedDocuments).toEqual(['web.json', 'admin/']);
    expect(loadConfig({}).trustedDocuments).toBeUndefined();
  });

  it('refuses to start with a manifest it cannot use', async () => {
    const upstreamUrl = new URL('http://127.0.0.1:9/v2');
    await expect(createGateway({ upstreamUrl, trustedDocuments: ['/nonexistent/manifest.json'] })).rejects.toThrow(
      /^TRUSTED_DOCUMENTS: cannot read \/nonexistent\/manifest\.json \(ENOENT\)\.$/,
    );
    await expect(
      createGateway({ upstreamUrl, trustedDocuments: [new URL('../../package.json', import.meta.url).pathname] }),
    ).rejects.toThrow(/must be a non-empty JSON object mapping document ids to document text/);
  });

  it('reads one manifest per app: a list of files, or a folder of them, merged by document id', () => {
    const folder = mkdtempSync(join(tmpdir(), 'manifests-'));
    writeFileSync(join(folder, 'web.json'), JSON.stringify({ 'sha256:aa': '{ __typename }', 'sha256:bb': 'query B { __typename }' }));
    writeFileSync(join(folder, 'admin.json'), JSON.stringify({ 'sha256:aa': '{ __typename }', 'sha256:cc': 'query C { __typename }' }));
    writeFileSync(join(folder, 'notes.txt'), 'not a manifest');
    const expected = new Map([
      ['sha256:aa', '{ __typename }'],
      ['sha256:cc', 'query C { __typename }'],
      ['sha256:bb', 'query B { __typename }'],
    ]);
    expect(loadTrustedDocuments([folder])).toEqual(expected);
    expect(loadTrustedDocuments([join(folder, 'admin.json'), join(folder, 'web.json')])).toEqual(expected);
    writeFileSync(join(folder, 'zz.json'), JSON.stringify({ 'sha256:aa': 'query Other { __typename }' }));
    expect(() => loadTrustedDocuments([folder])).toThrow(
      `TRUSTED_DOCUMENTS: ${join(folder, 'zz.json')} gives document sha256:aa another text than an earlier manifest.`,
    );
  });

  it('never quotes a file that is not JSON, whatever it holds', async () => {
    const secret = join(mkdtempSync(join(tmpdir(), 'manifest-')), 'secret.env');
    writeFileSync(secret, 'DB_PASSWORD=hunter2-very-secret\n');
    let message = '';
    try {
      await createGateway({ upstreamUrl: new URL('http://127.0.0.1:9/v2'), trustedDocuments: [secret] });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe(`TRUSTED_DOCUMENTS: ${secret} is not JSON.`);
  });
});

describe('GraphiQL under TRUSTED_DOCUMENTS', () => {
  it('is not served even when GRAPHIQL=true, and production logs why beside the listening line', async ({ onTestFinished }) => {
    const gateway = await spawnGateway({ UPSTREAM_URL: 'http://127.0.0.1:9/v2', GRAPHIQL: 'true', TRUSTED_DOCUMENTS: MANIFEST });
    onTestFinished(() => gateway.close());
    const withheld =
      'GraphiQL is not served: TRUSTED_DOCUMENTS is set, so only the manifests’ documents run, sent by documentId, and GraphiQL sends query text';
    await gateway.waitFor(withheld);
    expect(gateway.lines.slice(0, 2)).toEqual([
      expect.objectContaining({ msg: 'GraphQL gateway listening', graphiql: false }),
      expect.objectContaining({
        level: 30,
        graphiql: false,
        msg: withheld,
      }),
    ]);
    const page = await fetch(`http://127.0.0.1:${gateway.port}/graphql`, { headers: { accept: 'text/html' } });
    expect([page.status, page.headers.get('content-type')]).toEqual([406, 'application/json; charset=utf-8']);
  });
});
