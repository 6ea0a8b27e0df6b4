import { expect } from 'vitest';
import { gatewayOverUpstream } from '../support/fixtures.js';
import { envelope } from '../support/recording-upstream.js';
import { apiKeyPage, apiKeys, categoryRecord } from '../support/records.js';

/**
 * Many callers with different tokens at once, their upstream answers arriving in random order:
 * every upstream request carries its own caller's token, and every caller sees only its own data.
 */
const CALLERS = 40;
const tokens = Array.from({ length: CALLERS }, (_, i) => `Bearer caller-${i}-${Math.random().toString(36).slice(2)}`);

const it = gatewayOverUpstream(
  (request) => {
    const owner = String(request.headers.authorization);
    const delayMs = Math.floor(Math.random() * 15);
    if (request.method === 'PATCH') {
      const { name } = request.body as { name: string };
      return { delayMs, body: envelope(categoryRecord({ id: request.path.split('/').at(-1), name, updated_by: owner })) };
    }
    // Two pages per list, the second one found through the cursor of the first.
    const body =
      request.query.cursor === undefined ? apiKeyPage(apiKeys(25, 1, { name: owner }), owner) : apiKeyPage(apiKeys(5, 26, { name: owner }));
    return { delayMs, body };
  },
  { upstreamTimeoutMs: 2_000 },
);

it("keeps every caller's token and data apart under concurrency", async ({ gateway, upstream }) => {
  const work = tokens.flatMap((token, i) => [
    gateway
      .graphql('{ apiKeys(first: 30) { nodes { name } } }', { headers: { authorization: token, 'x-request-id': `read-${i}` } })
      .then((answer) => ({ token, kind: 'read' as const, answer })),
    gateway
      .graphql(`mutation { updateCategory(input: { id: "cat_${i}", name: "n${i}" }) { category { id name updatedBy } } }`, {
        headers: { authorization: token, 'x-request-id': `write-${i}` },
      })
      .then((answer) => ({ token, kind: 'write' as const, answer, i })),
  ]);
  const anonymous = gateway.graphql('{ apiKeys(first: 30) { nodes { name } } }');
  const results = await Promise.all(work);

  for (const result of results) {
    expect(result.answer.body.errors).toBeUndefined();
    if (result.kind === 'read') {
      const names = (result.answer.body.data as { apiKeys: { nodes: { name: string }[] } }).apiKeys.nodes.map((n) => n.name);
      expect(names).toEqual(Array.from({ length: 30 }, () => result.token));
    } else {
      expect(result.answer.body.data).toEqual({
        updateCategory: { category: { id: `cat_${result.i}`, name: `n${result.i}`, updatedBy: result.token } },
      });
    }
  }
  expect((await anonymous).body.errors?.map((e) => (e.extensions as { code: string }).code)).toEqual(['UNAUTHENTICATED']);

  // Three upstream requests per caller, each with that caller's token and request id, none without a token.
  expect(upstream.requests).toHaveLength(CALLERS * 3);
  tokens.forEach((token, i) => {
    const own = upstream.requests.filter((r) => r.headers.authorization === token);
    expect(own.map((r) => `${r.method} ${r.headers['x-request-id']} ${r.query.cursor ?? ''}`).sort()).toEqual(
      [`GET read-${i} `, `GET read-${i} ${token}`, `PATCH write-${i} `].sort(),
    );
  });
});
