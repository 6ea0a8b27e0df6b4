import { describe, expect } from 'vitest';
import { encodeCursor } from '../../src/upstream/paging.js';
import { AUTH } from '../support/auth.js';
import { closedWith, gatewayOverUpstream } from '../support/fixtures.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { envelope, type RecordingUpstream } from '../support/recording-upstream.js';
import { apiKeyList, apiKeyPage, apiKeys, categoryRecord } from '../support/records.js';
import { codes } from './harness.js';

/** Limits on what one request may ask for, each answered before the upstream is bothered. */
/** Pages of as many keys as asked for, for as long as asked, each pointing to the next. */
const endlessPages = apiKeyList(Infinity);

const it = gatewayOverUpstream(endlessPages, { upstreamTimeoutMs: 1_000 }).extend(
  'production',
  { scope: 'file' },
  async ({ upstream }, { onCleanup }): Promise<TestGateway> => {
    // The switches NODE_ENV=production turns off, over the same upstream.
    return closedWith(
      onCleanup,
      await startTestGateway({
        upstreamUrl: new URL(upstream.url),
        upstreamTimeoutMs: 1_000,
        graphiql: false,
        introspection: false,
        fieldSuggestions: false,
      }),
    );
  },
);

describe('MAX_UPSTREAM_CALLS (default 10)', () => {
  it('rejects aliases x pages over the budget before sending a single upstream request', async ({ gateway, upstream }) => {
    const answer = await gateway.graphql(
      '{ a: apiKeys(first: 100) { nodes { id } } b: apiKeys(first: 99) { nodes { id } } c: apiKeys(first: 98) { nodes { id } } }',
      { headers: AUTH },
    );
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      errors: [
        {
          message:
            'This operation would need 12 upstream requests, more than the 10 upstream requests allowed (MAX_UPSTREAM_CALLS). Ask for fewer records or fewer aliased fields per request.',
          extensions: { code: 'LIMIT_EXCEEDED', limit: 'upstreamCalls', max: 10 },
        },
      ],
    });
    expect(upstream.requests).toEqual([]);
  });

  it('counts identical reads once, as they are sent once, and the skipped head of a resumed page', async ({ gateway, upstream }) => {
    const same = await gateway.graphql(
      '{ a: apiKeys(first: 100) { nodes { id } } b: apiKeys(first: 100) { nodes { id } } c: apiKeys(first: 100) { nodes { id } } }',
      {
        headers: AUTH,
      },
    );
    expect(same.body.errors).toBeUndefined();
    expect(upstream.requests).toHaveLength(4);

    // after a cursor 10 records into a page: 10 + 100 records span 5 pages; twice that is over 10.
    const after = encodeCursor({ cursor: null, skip: 10 });
    const resumed = await gateway.graphql(
      `{ a: apiKeys(first: 100, after: "${after}") { nodes { id } } b: apiKeys(first: 100, after: "${after}", ) @include(if: true) { nodes { id } } }`,
      {
        headers: AUTH,
      },
    );
    expect(resumed.body.errors).toBeUndefined();
    expect(upstream.requests.slice(4)).toHaveLength(5);
  });

  it('fields left out by @skip cost nothing; variables are resolved before counting', async ({ gateway, upstream }) => {
    const answer = await gateway.graphql(
      'query($n: Int!, $skip: Boolean!) { a: apiKeys(first: $n) { nodes { id } } b: apiKeys(first: 99) @skip(if: $skip) { nodes { id } } c: apiKeys(first: 98) @skip(if: $skip) { nodes { id } } }',
      { headers: AUTH, variables: { n: 100, skip: true } },
    );
    expect(answer.body.errors).toBeUndefined();
    expect(upstream.requests).toHaveLength(4);

    const over = await gateway.graphql(
      'query($n: Int!, $skip: Boolean!) { a: apiKeys(first: $n) { nodes { id } } b: apiKeys(first: 99) @skip(if: $skip) { nodes { id } } c: apiKeys(first: 98) @skip(if: $skip) { nodes { id } } }',
      { headers: AUTH, variables: { n: 100, skip: false } },
    );
    expect(codes(over)).toEqual(['LIMIT_EXCEEDED']);
    expect(upstream.requests.slice(4)).toEqual([]);
  });

  it('stops at the budget when the upstream pages smaller than asked, so the estimate falls short', async ({ gateway, upstream }) => {
    // One record per page: first 100 would take 100 requests.
    upstream.answer((request) => {
      const at = Number(request.query.cursor ?? 0);
      return { body: apiKeyPage(apiKeys(1, at + 1), at + 1) };
    });
    const answer = await gateway.graphql('{ apiKeys(first: 100) { nodes { id } } }', { headers: AUTH });
    expect(answer.body).toEqual({
      data: { apiKeys: null },
      errors: [
        {
          message:
            'This operation needs more than the 10 upstream requests allowed (MAX_UPSTREAM_CALLS). Ask for fewer records or fewer aliased fields per request.',
          locations: [{ line: 1, column: 3 }],
          path: ['apiKeys'],
          extensions: { code: 'LIMIT_EXCEEDED', limit: 'upstreamCalls', max: 10 },
        },
      ],
    });
    expect(upstream.requests).toHaveLength(10);
  });

  it('counts every mutation: writes are never deduplicated', async ({ gateway, upstream }) => {
    upstream.answer((request) => ({
      body: envelope(categoryRecord({ id: 'cat_1', name: (request.body as { name: string }).name })),
    }));
    const fields = Array.from(
      { length: 11 },
      (_, i) => `m${i}: updateCategory(input: { id: "cat_1", name: "N" }) { category { name } }`,
    ).join(' ');
    const answer = await gateway.graphql(`mutation { ${fields} }`, { headers: AUTH });
    expect(codes(answer)).toEqual(['LIMIT_EXCEEDED']);
    expect(upstream.requests).toEqual([]);
  });
});

describe('graphql-armor limits', () => {
  const rejected = async (
    { gateway, upstream }: { gateway: TestGateway; upstream: RecordingUpstream },
    query: string,
    limit: string,
    max: number,
  ) => {
    const sent = upstream.requests.length;
    const answer = await gateway.graphql(query, { headers: AUTH });
    expect(answer.status).toBe(400);
    expect(answer.body.data).toBeUndefined();
    expect(answer.body.errors).toHaveLength(1);
    expect(answer.body.errors![0]!.extensions).toEqual({ code: 'LIMIT_EXCEEDED', limit, max });
    expect(upstream.requests.slice(sent)).toEqual([]);
    return answer.body.errors![0]!.message as string;
  };

  it('depth over MAX_DEPTH (8)', async ({ gateway, upstream }) => {
    const deep = '{ apiKeys { edges { node { id } } pageInfo { endCursor } } }';
    expect((await gateway.graphql(deep, { headers: AUTH })).body.errors).toBeUndefined();
    const nested =
      'query { ...A } fragment A on Query { apiKeys { edges { node { ... on ApiKey { ... on AuditedRecord { ... on ApiKey { ... on ApiKey { ... on ApiKey { ... on ApiKey { id } } } } } } } } } }';
    expect(await rejected({ gateway, upstream }, nested, 'depth', 8)).toMatch(/depth limit of 8/i);
  });

  it('aliases over MAX_ALIASES (15)', async ({ gateway, upstream }) => {
    const aliases = Array.from({ length: 16 }, (_, i) => `a${i}: apiKeys(first: 0) { __typename }`).join(' ');
    expect(await rejected({ gateway, upstream }, `{ ${aliases} }`, 'aliases', 15)).toMatch(/aliases limit of 15/i);
  });

  it('tokens over MAX_TOKENS (1000)', async ({ gateway, upstream }) => {
    const many = Array.from({ length: 1_001 }, () => '__typename').join(' ');
    expect(await rejected({ gateway, upstream }, `{ ${many} }`, 'tokens', 1000)).toMatch(/token limit of 1000/i);
  });

  it('directives over MAX_DIRECTIVES (10)', async ({ gateway, upstream }) => {
    expect(await rejected({ gateway, upstream }, `{ ${'__typename @include(if: true) '.repeat(11)}}`, 'directives', 10)).toMatch(
      /directives limit of 10/i,
    );
  });

  const everything =
    'edges { cursor node { id name type permissions createdBy createdTime updatedBy updatedTime } } nodes { id name type permissions createdBy createdTime updatedBy updatedTime } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }';

  it('cost over MAX_COST (20000): graphql-armor weighs a list by its `first`', async ({ gateway, upstream }) => {
    // The largest single field (first: 100, every field) is well under the limit...
    expect((await gateway.graphql(`{ apiKeys(first: 100) { ${everything} } }`, { headers: AUTH })).body.errors).toBeUndefined();
    // ...three of them are not, though identical reads would cost only 4 upstream requests.
    const three = ['a', 'b', 'c'].map((alias) => `${alias}: apiKeys(first: 100) { ${everything} }`).join(' ');
    expect(await rejected({ gateway, upstream }, `{ ${three} }`, 'cost', 20000)).toMatch(/^Query Cost limit of 20000 exceeded, found \d+/);
  });
});

describe('production switches', () => {
  it('introspection answers by default and is refused when INTROSPECTION=false', async ({ gateway, production }) => {
    const open = await gateway.graphql('{ __schema { queryType { name } } }');
    expect(open.body).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
    const closed = await production.graphql('{ __schema { queryType { name } } }');
    expect(closed.status).toBe(400);
    expect(closed.body.data).toBeUndefined();
    expect(JSON.stringify(closed.body.errors)).toMatch(/introspection/i);
  });

  it('field suggestions are masked when FIELD_SUGGESTIONS=false', async ({ gateway, production }) => {
    const dev = await gateway.graphql('{ apiKey { id } }', { headers: AUTH });
    expect(dev.body.errors![0]!.message).toBe('Cannot query field "apiKey" on type "Query". Did you mean "apiKeys"?');
    const prod = await production.graphql('{ apiKey { id } }', { headers: AUTH });
    expect(prod.body.errors![0]!.message).toBe('Cannot query field "apiKey" on type "Query". [Suggestion hidden]');
  });

  it('GraphiQL is served to browsers unless switched off', async ({ gateway, production }) => {
    const page = await fetch(gateway.url, { headers: { accept: 'text/html' } });
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    await page.text();
    const off = await fetch(production.url, { headers: { accept: 'text/html' } });
    expect(off.headers.get('content-type') ?? '').not.toMatch(/^text\/html/);
    expect(await off.text()).not.toMatch(/graphiql/i);
  });
});

describe('CSRF prevention', () => {
  const query = encodeURIComponent('{ __typename }');

  it('a GET without the x-graphql-yoga-csrf header is refused with 403; with it, it runs', async ({ gateway }) => {
    const bare = await fetch(`${gateway.url}?query=${query}`, { headers: { accept: 'application/json' } });
    expect(bare.status).toBe(403);
    expect(JSON.stringify(await bare.json())).toContain('Required CSRF header(s) not present');
    const marked = await fetch(`${gateway.url}?query=${query}`, { headers: { accept: 'application/json', 'x-graphql-yoga-csrf': '1' } });
    expect(marked.status).toBe(200);
    expect(await marked.json()).toEqual({ data: { __typename: 'Query' } });
  });

  it('a form or text/plain POST (no preflight in browsers) is refused before anything runs, a Basic credential too', async ({
    gateway,
    upstream,
  }) => {
    // Browsers attach Basic credentials on their own, so they prove nothing about who sent the request.
    for (const headers of [{}, { authorization: 'Basic dXNlcjpwYXNz' }] as Array<Record<string, string>>) {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
        const simple = await fetch(gateway.url, {
          method: 'POST',
          headers: { 'content-type': type, ...headers },
          body: JSON.stringify({ query: '{ apiKeys { nodes { id } } }' }),
        });
        expect(simple.status).toBe(403);
        await simple.text();
      }
    }
    expect(upstream.requests).toEqual([]);
  });

  it('a GET with a Bearer credential and nothing else (urql’s default) runs: no browser sends one cross-site without a preflight', async ({
    gateway,
  }) => {
    const answer = await fetch(`${gateway.url}?query=${query}`, { headers: { accept: 'application/json', ...AUTH } });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ data: { __typename: 'Query' } });
  });
});

describe('request body size (src/server/http-server.ts, MAX_BODY_BYTES)', () => {
  it('a body over the limit is answered 413 PAYLOAD_TOO_LARGE and nothing runs', async ({ upstream }) => {
    const small = await startTestGateway({ upstreamUrl: new URL(upstream.url), maxBodyBytes: 1024 });
    try {
      const answer = await small.graphql(`{ apiKeys { nodes { id } } } # ${'x'.repeat(2048)}`, { headers: AUTH });
      expect(answer.status).toBe(413);
      expect(codes(answer)).toEqual(['PAYLOAD_TOO_LARGE']);
      expect(upstream.requests).toEqual([]);
    } finally {
      await small.close();
    }
  });
});
