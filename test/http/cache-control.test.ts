import { describe, expect } from 'vitest';
import { AUTH } from '../support/auth.js';
import { gatewayOverUpstream } from '../support/fixtures.js';
import { graphqlBody, rawHttp } from '../support/raw-http.js';
import { envelope } from '../support/recording-upstream.js';
import { apiKeyRecord } from '../support/records.js';

/** Nothing a shared cache could replay to another user: every answer says private, no-store. */
const NO_STORE = 'private, no-store';

const it = gatewayOverUpstream(undefined, { graphiql: true, maxBodyBytes: 1000 });

describe('Cache-Control', () => {
  it('is private, no-store on a successful answer', async ({ gateway, upstream }) => {
    upstream.answer(() => ({ body: envelope([apiKeyRecord(1)]) }));
    const answer = await gateway.graphql('{ apiKeys(first: 1) { nodes { id } } }', { headers: AUTH });
    expect(answer.body).toEqual({ data: { apiKeys: { nodes: [{ id: 'k1' }] } } });
    expect(answer.headers.get('cache-control')).toBe(NO_STORE);
  });

  it('is private, no-store on an answer carrying an upstream error', async ({ gateway, upstream }) => {
    upstream.answer(() => ({ status: 403, body: { success: false, result: null, errors: [{ message: 'Not yours' }], links: {} } }));
    const answer = await gateway.graphql('{ apiKeys(first: 1) { nodes { id } } }', { headers: AUTH });
    expect(answer.body.errors?.map((e) => (e.extensions as { code: string }).code)).toEqual(['FORBIDDEN']);
    expect(answer.headers.get('cache-control')).toBe(NO_STORE);
  });

  it('is private, no-store on an UNAUTHENTICATED answer', async ({ gateway }) => {
    const answer = await gateway.graphql('{ apiKeys(first: 1) { nodes { id } } }');
    expect(answer.body.errors?.map((e) => (e.extensions as { code: string }).code)).toEqual(['UNAUTHENTICATED']);
    expect(answer.headers.get('cache-control')).toBe(NO_STORE);
  });

  it('is private, no-store on a request Yoga refuses (syntax error)', async ({ gateway }) => {
    const answer = await rawHttp(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...AUTH },
      body: graphqlBody('{ apiKeys('),
    });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body.toString()).errors[0].message).toMatch(/^Syntax Error/);
    expect(answer.headers['cache-control']).toBe(NO_STORE);
  });

  it('is private, no-store on the 413 of an oversized body', async ({ gateway }) => {
    const answer = await rawHttp(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...AUTH },
      body: graphqlBody('{ __typename }', { pad: 'x'.repeat(1000) }),
    });
    expect(answer.status).toBe(413);
    expect(answer.headers['cache-control']).toBe(NO_STORE);
  });

  it('is private, no-store on the GraphiQL page, which may carry a preset token', async ({ gateway }) => {
    const answer = await rawHttp(gateway.url, { headers: { accept: 'text/html' } });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^text\/html/);
    expect(answer.headers['cache-control']).toBe(NO_STORE);
  });
});
