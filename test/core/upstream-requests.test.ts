import { readFileSync } from 'node:fs';
import { describe, expect } from 'vitest';
import { AUTH, TOKEN } from '../support/auth.js';
import { gatewayOverUpstream } from '../support/fixtures.js';
import { envelope } from '../support/recording-upstream.js';
import {
  AUDIT,
  AUDIT_FIELDS,
  apiKeyPage,
  apiKeys,
  CERTIFICATE,
  categoryRecord,
  folderRecord,
  hotspotRecord,
  identityProviderRecord,
  serviceRecord,
  userRecord,
} from '../support/records.js';

/**
 * The exact upstream request behind every operation, against a fake upstream that records what
 * it receives over real HTTP.
 */
const it = gatewayOverUpstream(undefined, { upstreamTimeoutMs: 500 });
const PACKAGE = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { name: string; version: string };

describe('apiKeys', () => {
  it("sends GET /v2/api_keys?limit=N with the caller's Authorization and x-request-id, and maps every field", async ({
    gateway,
    upstream,
  }) => {
    upstream.answer(() => ({ body: envelope(apiKeys(2)) }));
    const answer = await gateway.graphql(
      '{ apiKeys(first: 2) { edges { cursor node { id name type permissions createdBy createdTime updatedBy updatedTime } } nodes { id } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }',
      { headers: { ...AUTH, 'x-request-id': 'req-42' } },
    );
    expect(upstream.requests).toHaveLength(1);
    const [request] = upstream.requests;
    expect({ method: request!.method, path: request!.path, query: request!.query, body: request!.body }).toEqual({
      method: 'GET',
      path: '/v2/api_keys',
      query: { limit: '2' },
      body: undefined,
    });
    expect(request!.headers.authorization).toBe(AUTH.authorization);
    expect(request!.headers['x-request-id']).toBe('req-42');
    expect(request!.headers.accept).toBe('application/json');
    // The gateway, named by package.json's name and version (a checkout's here, the image's in production).
    expect(request!.headers['user-agent']).toBe(`${PACKAGE.name}/${PACKAGE.version}`);
    expect(answer.status).toBe(200);
    const connection = (answer.body.data as any).apiKeys;
    expect(answer.body.errors).toBeUndefined();
    expect(connection.edges.map((e: any) => e.node)).toEqual([
      { id: 'k1', name: 'Key 1', type: 'api', permissions: [], ...AUDIT_FIELDS },
      { id: 'k2', name: 'Key 2', type: 'api', permissions: ['fetch'], ...AUDIT_FIELDS },
    ]);
    expect(connection.nodes).toEqual([{ id: 'k1' }, { id: 'k2' }]);
    expect(connection.pageInfo).toEqual({
      hasNextPage: false,
      hasPreviousPage: false,
      startCursor: connection.edges[0].cursor,
      endCursor: connection.edges[1].cursor,
    });
  });

  it('uses a declared variable default when the variable is omitted, also for a non-null variable', async ({ gateway, upstream }) => {
    upstream.answer(() => ({ body: envelope([], {}) }));
    const answer = await gateway.graphql(
      'query Keys($n: Int! = 2, $after: String = null) { apiKeys(first: $n, after: $after) { nodes { id } } }',
      { headers: AUTH },
    );
    expect(answer.body).toEqual({ data: { apiKeys: { nodes: [] } } });
    expect(upstream.requests.map((r) => r.query)).toEqual([{ limit: '2' }]);
  });

  it('generates an x-request-id when the caller sends none', async ({ gateway, upstream }) => {
    upstream.answer(() => ({ body: envelope([], {}) }));
    await gateway.graphql('{ apiKeys(first: 1) { nodes { id } } }', { headers: AUTH });
    expect(upstream.requests[0]!.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('follows links.next URLs page after page, sending only their cursor to UPSTREAM_URL', async ({ gateway, upstream }) => {
    upstream.answer((request) => {
      const page = Number(request.query.cursor ?? 0);
      return { body: apiKeyPage(apiKeys(25, page * 25 + 1), page < 3 ? page + 1 : null) };
    });
    const answer = await gateway.graphql('{ apiKeys(first: 100) { nodes { id } pageInfo { hasNextPage } } }', { headers: AUTH });
    expect(upstream.requests.map((r) => `${r.method} ${r.path} ${JSON.stringify(r.query)}`)).toEqual([
      'GET /v2/api_keys {"limit":"25"}',
      'GET /v2/api_keys {"limit":"25","cursor":"1"}',
      'GET /v2/api_keys {"limit":"25","cursor":"2"}',
      'GET /v2/api_keys {"limit":"25","cursor":"3"}',
    ]);
    const nodes = (answer.body.data as any).apiKeys.nodes;
    expect(nodes).toHaveLength(100);
    expect(nodes[99]).toEqual({ id: 'k100' });
    expect((answer.body.data as any).apiKeys.pageInfo).toEqual({ hasNextPage: false });
  });

  it('deduplicates identical reads within one operation (two aliases, one upstream call)', async ({ gateway, upstream }) => {
    upstream.answer(() => ({ body: envelope(apiKeys(5)) }));
    const answer = await gateway.graphql('{ a: apiKeys(first: 5) { nodes { id } } b: apiKeys(first: 5) { nodes { name } } }', {
      headers: AUTH,
    });
    expect(upstream.requests).toHaveLength(1);
    expect((answer.body.data as any).a.nodes).toHaveLength(5);
    expect((answer.body.data as any).b.nodes[4]).toEqual({ name: 'Key 5' });
  });

  it('does not share reads between requests', async ({ gateway, upstream }) => {
    upstream.answer(() => ({ body: envelope(apiKeys(1)) }));
    await gateway.graphql('{ apiKeys(first: 1) { nodes { id } } }', { headers: AUTH });
    await gateway.graphql('{ apiKeys(first: 1) { nodes { id } } }', { headers: AUTH });
    expect(upstream.requests).toHaveLength(2);
  });

  it('resumes from a cursor in the middle of an upstream page with the upstream cursor of that page', async ({ gateway, upstream }) => {
    // Page p2 links on to p3 (a page linking to itself is a loop, refused).
    upstream.answer((request) => ({
      body: apiKeyPage(
        apiKeys(Number(request.query.limit), request.query.cursor === 'p2' ? 26 : 1),
        request.query.cursor === 'p2' ? 'p3' : 'p2',
      ),
    }));
    const first = await gateway.graphql('{ apiKeys(first: 30) { edges { cursor node { id } } } }', { headers: AUTH });
    const edges = (first.body.data as any).apiKeys.edges;
    expect(edges[27].node).toEqual({ id: 'k28' });
    const sent = upstream.requests.length;
    const resumed = await gateway.graphql(`{ apiKeys(first: 2, after: "${edges[27].cursor}") { nodes { id } } }`, { headers: AUTH });
    expect(upstream.requests.slice(sent).map((r) => r.query)).toEqual([{ limit: '5', cursor: 'p2' }]);
    expect((resumed.body.data as any).apiKeys.nodes).toEqual([{ id: 'k29' }, { id: 'k30' }]);
  });

  it.for([
    ['-1', 'must be between 0 and 100'],
    ['101', 'must be between 0 and 100'],
  ])('refuses first: %s before any upstream call', async ([first, message], { gateway, upstream }) => {
    const answer = await gateway.graphql(`{ apiKeys(first: ${first}) { nodes { id } } }`, { headers: AUTH });
    expect(answer.body).toEqual({
      data: { apiKeys: null },
      errors: [
        {
          message: '"first" must be between 0 and 100.',
          locations: [{ line: 1, column: 3 }],
          path: ['apiKeys'],
          extensions: { code: 'BAD_USER_INPUT', issues: [{ path: 'first', message }] },
        },
      ],
    });
    expect(upstream.requests).toEqual([]);
  });

  it('checks the token before first: an anonymous first: 101 is UNAUTHENTICATED, telling nothing of the range', async ({
    gateway,
    upstream,
  }) => {
    const answer = await gateway.graphql('{ apiKeys(first: 101) { nodes { id } } }');
    expect(answer.body.errors?.map((error) => [error.path, error.extensions])).toEqual([[['apiKeys'], { code: 'UNAUTHENTICATED' }]]);
    expect(upstream.requests).toEqual([]);
  });

  it('refuses a cursor it did not issue before any upstream call', async ({ gateway, upstream }) => {
    const answer = await gateway.graphql('{ apiKeys(after: "bm90LWEtY3Vyc29y") { nodes { id } } }', { headers: AUTH });
    expect(answer.body.errors?.[0]?.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      issues: [{ path: 'after', message: 'is not a valid cursor' }],
    });
    expect(upstream.requests).toEqual([]);
  });

  it('answers first: 0 with an empty connection and no upstream call', async ({ gateway, upstream }) => {
    const answer = await gateway.graphql('{ apiKeys(first: 0) { edges { cursor } pageInfo { hasNextPage startCursor endCursor } } }', {
      headers: AUTH,
    });
    expect(answer.body).toEqual({ data: { apiKeys: { edges: [], pageInfo: { hasNextPage: false, startCursor: null, endCursor: null } } } });
    expect(upstream.requests).toEqual([]);
  });
});

describe('mutations send exactly the fields given, in upstream form', () => {
  const hotspot = hotspotRecord({ id: 'hs 1', name: 'Buy', target: '_parent' });

  it('updateHotspot: PATCH /videos/{videoId}/hotspots/{id}, ids encoded as one path segment', async ({ gateway, upstream }) => {
    upstream.answer(() => ({ body: envelope(hotspot) }));
    const answer = await gateway.graphql(
      `mutation ($input: UpdateHotspotInput!) { updateHotspot(input: $input) { clientMutationId hotspot { id name showAt hideAt x y action link target opacity } } }`,
      {
        headers: AUTH,
        variables: {
          input: {
            videoId: 'vid ü',
            id: 'hs 1',
            showAt: '00:00:01',
            x: 10.5,
            target: 'PARENT',
            opacity: 'OPAQUE',
            clientMutationId: 'm-1',
          },
        },
      },
    );
    expect(upstream.requests.map((r) => ({ method: r.method, path: r.path, body: r.body, type: r.headers['content-type'] }))).toEqual([
      {
        method: 'PATCH',
        path: '/v2/videos/vid%20%C3%BC/hotspots/hs%201',
        body: { show_at: '00:00:01', x: 10.5, target: '_parent', opacity: 'opaque' },
        type: 'application/json',
      },
    ]);
    expect(answer.body).toEqual({
      data: {
        updateHotspot: {
          clientMutationId: 'm-1',
          hotspot: {
            id: 'hs 1',
            name: 'Buy',
            showAt: '00:00:01',
            hideAt: '00:00:09',
            x: 10.5,
            y: 90,
            action: 'LINK',
            link: 'https://shop.example/a',
            target: 'PARENT',
            opacity: 'OPAQUE',
          },
        },
      },
    });
  });

  it('createIdentityProvider: POST /idps with the certificate exactly as given', async ({ gateway, upstream }) => {
    const input = {
      name: 'Okta',
      company: 'OKTA',
      type: 'SAML2',
      certificate: CERTIFICATE,
      entityId: 'urn:app',
      signinUrl: 'https://sso.example/saml',
    };
    const record = identityProviderRecord({ id: 'idp1', name: 'Okta', company: 'okta', entity_id: 'urn:app' });
    upstream.answer(() => ({ body: envelope(record) }));
    const answer = await gateway.graphql(
      `mutation ($input: CreateIdentityProviderInput!) { createIdentityProvider(input: $input) { clientMutationId identityProvider { id name company type certificate entityId signinUrl createdBy createdTime updatedBy updatedTime } } }`,
      { headers: AUTH, variables: { input } },
    );
    expect(upstream.requests.map((r) => ({ method: r.method, path: r.path, body: r.body }))).toEqual([
      {
        method: 'POST',
        path: '/v2/idps',
        body: {
          name: 'Okta',
          company: 'okta',
          type: 'saml2',
          certificate: CERTIFICATE,
          entity_id: 'urn:app',
          signin_url: 'https://sso.example/saml',
        },
      },
    ]);
    expect(answer.body).toEqual({
      data: {
        createIdentityProvider: {
          clientMutationId: null,
          identityProvider: { id: 'idp1', ...input, ...AUDIT_FIELDS },
        },
      },
    });
  });

  it.for([
    [
      'updateCategory',
      '{ updateCategory(input: { id: "cat_1", value: "films" }) { category { id name value } } }',
      { method: 'PATCH', path: '/v2/categories/cat_1', body: { value: 'films' } },
      categoryRecord({ id: 'cat_1', name: 'Films', value: 'films' }),
      { updateCategory: { category: { id: 'cat_1', name: 'Films', value: 'films' } } },
    ],
    [
      'updateUser',
      '{ updateUser(input: { id: "usr_9", name: "Ada", role: ADMIN }) { user { id name email role } } }',
      { method: 'PATCH', path: '/v2/users/usr_9', body: { name: 'Ada', role: 'admin' } },
      userRecord({ id: 'usr_9', name: 'Ada', email: 'ada@example.com', role: 'admin' }),
      { updateUser: { user: { id: 'usr_9', name: 'Ada', email: 'ada@example.com', role: 'ADMIN' } } },
    ],
    [
      'createService',
      '{ createService(input: { name: "Channel", provider: CAMPAIGN_MONITOR }) { service { id name provider } } }',
      { method: 'POST', path: '/v2/services', body: { name: 'Channel', provider: 'campaign_monitor' } },
      serviceRecord({ id: 'svc_1', name: 'Channel', provider: 'campaign_monitor' }),
      { createService: { service: { id: 'svc_1', name: 'Channel', provider: 'CAMPAIGN_MONITOR' } } },
    ],
    [
      'createFolder',
      '{ createFolder(input: { name: "Trailers", clientMutationId: "7" }) { clientMutationId folder { id name createdBy } } }',
      { method: 'POST', path: '/v2/folders', body: { name: 'Trailers' } },
      folderRecord({ id: 'fld_1', name: 'Trailers' }),
      { createFolder: { clientMutationId: '7', folder: { id: 'fld_1', name: 'Trailers', createdBy: AUDIT.created_by } } },
    ],
  ])('%s', async ([_, operation, request, record, data], { gateway, upstream }) => {
    upstream.answer(() => ({ body: envelope(record) }));
    const answer = await gateway.graphql(`mutation ${operation}`, { headers: AUTH });
    expect(upstream.requests.map((r) => ({ method: r.method, path: r.path, body: r.body }))).toEqual([request]);
    expect(upstream.requests[0]!.headers.authorization).toBe(AUTH.authorization);
    expect(answer.body).toEqual({ data });
  });
});

describe('client mistakes are answered before anything goes upstream', () => {
  it.for<[string, Record<string, string>]>([
    ['no Authorization header', {}],
    ['a Basic credential', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['an empty Bearer token', { authorization: 'Bearer ' }],
  ])('%s is UNAUTHENTICATED, checked before the input', async ([_, headers], { gateway, upstream }) => {
    const answer = await gateway.graphql('mutation { createFolder(input: { name: "" }) { folder { id } } }', { headers });
    expect(answer.body).toEqual({
      data: { createFolder: null },
      errors: [
        {
          message: 'A bearer token is required: send the header "Authorization: Bearer <token>".',
          locations: [{ line: 1, column: 12 }],
          path: ['createFolder'],
          extensions: { code: 'UNAUTHENTICATED' },
        },
      ],
    });
    expect(upstream.requests).toEqual([]);
  });

  it('serves introspection and __typename without a token', async ({ gateway }) => {
    const answer = await gateway.graphql('{ __typename __type(name: "ApiKey") { name } }');
    expect(answer.body).toEqual({ data: { __typename: 'Query', __type: { name: 'ApiKey' } } });
  });

  it.for([
    ['createFolder(input: { name: "" })', [{ path: 'input.name', message: 'must be 1 to 40 characters long' }]],
    [`createFolder(input: { name: "${'x'.repeat(41)}" })`, [{ path: 'input.name', message: 'must be 1 to 40 characters long' }]],
    ['updateCategory(input: { id: "c", value: "" })', [{ path: 'input.value', message: 'must be 1 to 40 characters long' }]],
    ['updateCategory(input: { id: "c" })', [{ path: 'input', message: 'must change at least one of: name, value' }]],
    [
      'updateCategory(input: { id: "c", name: null })',
      [{ path: 'input.name', message: 'must not be null: omit the field to leave it unchanged' }],
    ],
    [
      'updateUser(input: { id: "..", name: "A" })',
      [
        {
          path: 'input.id',
          message:
            'must be a non-empty id of at most 256 characters, without "/", "?", "#", control characters or unpaired surrogates, and not "." or ".."',
        },
      ],
    ],
    [
      'updateUser(input: { id: "u", role: null })',
      [{ path: 'input.role', message: 'must not be null: omit the field to leave it unchanged' }],
    ],
    [
      'updateHotspot(input: { videoId: "v/1", id: "h", showAt: "00:61:00", link: "ftp://x.example" })',
      [
        {
          path: 'input.videoId',
          message:
            'must be a non-empty id of at most 256 characters, without "/", "?", "#", control characters or unpaired surrogates, and not "." or ".."',
        },
        { path: 'input.showAt', message: 'must be a time-code HH:MM:SS with minutes and seconds from 00 to 59' },
        { path: 'input.link', message: 'must be an http(s) URL' },
      ],
    ],
    [
      'createIdentityProvider(input: { name: "I", company: GOOGLE, type: SAML2, certificate: "-----BEGIN CERTIFICATE-----\\nnope\\n-----END CERTIFICATE-----", entityId: "e", signinUrl: "mailto:a@b.c" })',
      [
        { path: 'input.certificate', message: 'must be exactly one PEM-encoded X.509 certificate block, at most 16384 characters' },
        { path: 'input.signinUrl', message: 'must be an http(s) URL' },
      ],
    ],
  ])('%s is BAD_USER_INPUT with issues', async ([field, issues], { gateway, upstream }) => {
    const answer = await gateway.graphql(`mutation { m: ${field} { clientMutationId } }`, { headers: AUTH });
    expect(answer.body.data).toEqual({ m: null });
    expect(answer.body.errors).toEqual([
      {
        message: 'The input is invalid: see extensions.issues.',
        locations: [{ line: 1, column: 12 }],
        path: ['m'],
        extensions: { code: 'BAD_USER_INPUT', issues },
      },
    ]);
    expect(upstream.requests).toEqual([]);
  });
});

describe('upstream errors become precise GraphQL errors', () => {
  const folder = 'mutation { createFolder(input: { name: "F" }) { folder { id } } }';

  it.for<[number, string]>([
    [400, 'BAD_USER_INPUT'],
    [401, 'UNAUTHENTICATED'],
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
    [409, 'CONFLICT'],
    [422, 'BAD_USER_INPUT'],
    [500, 'UPSTREAM_ERROR'],
    [502, 'UPSTREAM_ERROR'],
    [302, 'UPSTREAM_ERROR'],
  ])('HTTP %i with an envelope error is %s, with the error object’s message and code', async ([status, code], { gateway, upstream }) => {
    const error = { code: 'e', detail: `detail ${status}` };
    upstream.answer(() => ({ status, body: { success: false, result: null, errors: [error], links: {} } }));
    const answer = await gateway.graphql(folder, { headers: AUTH });
    expect(answer.body).toEqual({
      data: { createFolder: null },
      errors: [
        {
          message: `detail ${status}`,
          locations: [{ line: 1, column: 12 }],
          path: ['createFolder'],
          extensions: { code, upstream: { status, error: { message: `detail ${status}`, code: 'e' } } },
        },
      ],
    });
  });

  it("each object of the errors array is its own error at the field's path", async ({ gateway, upstream }) => {
    const errors = [
      { field: 'name', message: 'name is taken' },
      { field: 'name', title: 'name is reserved' },
    ];
    upstream.answer(() => ({ status: 422, body: { success: false, result: null, errors, links: {} } }));
    const answer = await gateway.graphql(folder, { headers: AUTH });
    expect(answer.body.errors).toEqual([
      {
        message: 'name is taken',
        locations: [{ line: 1, column: 12 }],
        path: ['createFolder'],
        extensions: { code: 'BAD_USER_INPUT', upstream: { status: 422, error: { message: 'name is taken', field: 'name' } } },
      },
      {
        message: 'name is reserved',
        locations: [{ line: 1, column: 12 }],
        path: ['createFolder'],
        extensions: { code: 'BAD_USER_INPUT', upstream: { status: 422, error: { message: 'name is reserved', field: 'name' } } },
      },
    ]);
  });

  it('429 is RATE_LIMITED with retryAfter in seconds', async ({ gateway, upstream }) => {
    upstream.answer(() => ({
      status: 429,
      headers: { 'retry-after': '30' },
      body: { success: false, result: null, errors: [{ message: 'Too many requests' }], links: {} },
    }));
    const answer = await gateway.graphql(folder, { headers: AUTH });
    expect(answer.body.errors?.[0]?.extensions).toEqual({
      code: 'RATE_LIMITED',
      retryAfter: 30,
      upstream: { status: 429, error: { message: 'Too many requests' } },
    });
  });

  it('an error status without an envelope gets one generic error naming the status', async ({ gateway, upstream }) => {
    upstream.answer(() => ({ status: 401, body: '' }));
    const answer = await gateway.graphql(folder, { headers: AUTH });
    expect(answer.body.errors?.[0]).toMatchObject({
      message: 'The upstream service answered with HTTP status 401.',
      extensions: { code: 'UNAUTHENTICATED', upstream: { status: 401 } },
    });
  });

  it('a 2xx with success: false is an error too', async ({ gateway, upstream }) => {
    upstream.answer(() => ({ status: 200, body: { success: false, result: null, errors: [{ message: 'quota exceeded' }], links: {} } }));
    const answer = await gateway.graphql(folder, { headers: AUTH });
    expect(answer.body.errors?.[0]).toMatchObject({
      message: 'quota exceeded',
      extensions: { code: 'UPSTREAM_ERROR', upstream: { status: 200, error: { message: 'quota exceeded' } } },
    });
  });

  it.for<[string, Record<string, unknown>, Record<string, unknown>]>([
    [
      'success: "false" (a string) with errors',
      { success: 'false', result: null, errors: [{ message: 'quota exceeded' }], links: {} },
      {
        message: 'quota exceeded',
        extensions: { code: 'UPSTREAM_ERROR', upstream: { status: 200, error: { message: 'quota exceeded' } } },
      },
    ],
    [
      'no success and errors',
      { result: { id: 'f1' }, errors: [{ message: 'half done' }], links: {} },
      { message: 'half done', extensions: { code: 'UPSTREAM_ERROR', upstream: { status: 200, error: { message: 'half done' } } } },
    ],
    [
      'no success and no errors',
      { result: { id: 'f1' }, errors: [], links: {} },
      {
        message: 'The upstream service sent a response the gateway cannot read: the envelope’s success is not true.',
        extensions: { code: 'UPSTREAM_BAD_RESPONSE' },
      },
    ],
  ])('a 2xx with %s is not a success', async ([_, body, error], { gateway, upstream }) => {
    upstream.answer(() => ({ status: 200, body }));
    const answer = await gateway.graphql(folder, { headers: AUTH });
    expect(answer.body).toEqual({
      data: { createFolder: null },
      errors: [{ ...error, locations: [{ line: 1, column: 12 }], path: ['createFolder'] }],
    });
  });

  it('a valid envelope under Content-Type text/html is UPSTREAM_BAD_RESPONSE; an error status under it keeps its code', async ({
    gateway,
    upstream,
  }) => {
    upstream.answer(() => ({ headers: { 'content-type': 'text/html' }, body: envelope(folderRecord({ id: 'f1', name: 'F' })) }));
    const answer = await gateway.graphql(folder, { headers: AUTH });
    expect(answer.body.errors).toEqual([
      {
        message: 'The upstream service sent a response the gateway cannot read: the Content-Type is not JSON.',
        locations: [{ line: 1, column: 12 }],
        path: ['createFolder'],
        extensions: { code: 'UPSTREAM_BAD_RESPONSE' },
      },
    ]);
    upstream.answer(() => ({
      status: 404,
      headers: { 'content-type': 'text/html' },
      body: { success: false, errors: [{ message: 'x' }] },
    }));
    expect((await gateway.graphql(folder, { headers: AUTH })).body.errors?.[0]?.extensions).toEqual({
      code: 'NOT_FOUND',
      upstream: { status: 404 },
    });
  });

  it('an update answered with another record than the one requested is UPSTREAM_BAD_RESPONSE', async ({ gateway, upstream }) => {
    upstream.answer(() => ({ body: envelope(categoryRecord({ id: 'cat_OTHER', name: 'N' })) }));
    const answer = await gateway.graphql('mutation { updateCategory(input: { id: "cat_1", name: "N" }) { category { id name } } }', {
      headers: AUTH,
    });
    expect(answer.body).toEqual({
      data: { updateCategory: null },
      errors: [
        {
          message: 'The upstream service sent a response the gateway cannot read: the record’s id is not the one requested.',
          locations: [{ line: 1, column: 12 }],
          path: ['updateCategory'],
          extensions: { code: 'UPSTREAM_BAD_RESPONSE' },
        },
      ],
    });
  });

  it('a Retry-After too large for a number is a retryAfter of one day', async ({ gateway, upstream }) => {
    upstream.answer(() => ({
      status: 429,
      headers: { 'retry-after': '9'.repeat(400) },
      body: { success: false, result: null, errors: [], links: {} },
    }));
    const answer = await gateway.graphql(folder, { headers: AUTH });
    expect(answer.body.errors?.[0]?.extensions).toEqual({ code: 'RATE_LIMITED', retryAfter: 86_400, upstream: { status: 429 } });
  });

  it.for([
    ['HTML', '<html>oops</html>', 'The upstream service sent a response the gateway cannot read: the body is not JSON.'],
    [
      'JSON that is not an envelope',
      '{"id":"x"}',
      'The upstream service sent a response the gateway cannot read: the body is not a response envelope.',
    ],
  ])('a 2xx with %s is UPSTREAM_BAD_RESPONSE', async ([_, body, message], { gateway, upstream }) => {
    upstream.answer(() => ({ status: 200, body }));
    const answer = await gateway.graphql(folder, { headers: AUTH });
    expect(answer.body.errors).toEqual([
      { message, locations: [{ line: 1, column: 12 }], path: ['createFolder'], extensions: { code: 'UPSTREAM_BAD_RESPONSE' } },
    ]);
  });

  it('an upstream slower than UPSTREAM_TIMEOUT_MS is UPSTREAM_TIMEOUT', async ({ gateway, upstream }) => {
    upstream.answer(() => ({ delayMs: 1500, body: envelope({ id: 'late' }) }));
    const answer = await gateway.graphql(folder, { headers: AUTH });
    expect(answer.body.errors).toEqual([
      {
        message: 'The upstream service did not answer within 500 ms.',
        locations: [{ line: 1, column: 12 }],
        path: ['createFolder'],
        extensions: { code: 'UPSTREAM_TIMEOUT' },
      },
    ]);
  });

  it('a failing field never empties its siblings', async ({ gateway, upstream }) => {
    upstream.answer((request) =>
      request.body && (request.body as { name: string }).name === 'bad'
        ? { status: 404, body: { success: false, result: null, errors: [{ message: 'gone' }], links: {} } }
        : { body: envelope(folderRecord({ id: 'f1', name: 'good' })) },
    );
    const answer = await gateway.graphql(
      'mutation { a: createFolder(input: { name: "bad" }) { folder { id } } b: createFolder(input: { name: "good" }) { folder { id name } } }',
      { headers: AUTH },
    );
    expect(answer.body.data).toEqual({ a: null, b: { folder: { id: 'f1', name: 'good' } } });
    expect(answer.body.errors?.map((e) => [e.path, (e.extensions as any).code])).toEqual([[['a'], 'NOT_FOUND']]);
  });

  it('never puts the token, the upstream address or a stack into a response', async ({ gateway, upstream }) => {
    upstream.answer(() => ({ status: 500, body: '<html>stack at Object.<anonymous> (/srv/app.js:1:1)</html>' }));
    const answer = await gateway.graphql(folder, { headers: AUTH });
    const text = JSON.stringify(answer.body);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(new URL(upstream.url).host);
    expect(text).not.toContain('app.js');
  });
});

describe('an unreachable upstream', () => {
  it('is UPSTREAM_UNAVAILABLE, without its address in the answer', async ({ start }) => {
    const closed = await start.upstream();
    const address = new URL(closed.url);
    await closed.close();
    const lonely = await start.gateway({ upstreamUrl: address, upstreamTimeoutMs: 2000 });
    const answer = await lonely.graphql('{ apiKeys { nodes { id } } }', { headers: AUTH });
    expect(answer.body).toEqual({
      data: { apiKeys: null },
      errors: [
        {
          message: 'The upstream service could not be reached.',
          locations: [{ line: 1, column: 3 }],
          path: ['apiKeys'],
          extensions: { code: 'UPSTREAM_UNAVAILABLE' },
        },
      ],
    });
    expect(JSON.stringify(answer.body)).not.toContain(address.host);
  });
});
