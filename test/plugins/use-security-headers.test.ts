import { describe, expect, it } from 'vitest';
import { SECURITY_HEADERS, useSecurityHeaders } from '../../src/plugins/use-security-headers.js';
import { answering, ENDPOINT, post, send, yogaWith } from '../support/yoga.js';

const PAGE_POLICY = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; " +
    "connect-src 'self'; worker-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

describe('useSecurityHeaders', () => {
  it('is nosniff alone for the answers written before Yoga', () => {
    expect(SECURITY_HEADERS).toEqual({ 'x-content-type-options': 'nosniff' });
  });

  it('puts nosniff, and nothing of the page policy, on a JSON answer', async () => {
    const answer = await post(yogaWith([useSecurityHeaders()]), { query: '{ hello }' });
    expect(answer.headers).toEqual({
      'content-type': 'application/graphql-response+json; charset=utf-8',
      'content-length': '32',
      'x-content-type-options': 'nosniff',
    });
  });

  it('puts nosniff on an answer without a body or a type', async () => {
    const missing = await send(yogaWith([useSecurityHeaders()]), 'http://yoga/nothing');
    expect([missing.status, missing.headers]).toEqual([404, { 'x-content-type-options': 'nosniff' }]);
  });

  it('gives an HTML page the strict policy and a charset when it declared none', async () => {
    const page = await send(yogaWith([answering('<p>page</p>', { 'content-type': 'text/html' }), useSecurityHeaders()]), ENDPOINT);
    expect(page.headers).toEqual({
      'content-type': 'text/html; charset=utf-8',
      'content-length': '11',
      'x-content-type-options': 'nosniff',
      ...PAGE_POLICY,
    });
  });

  it("keeps an HTML page's own charset", async () => {
    const page = await send(
      yogaWith([answering('<p>page</p>', { 'content-type': 'text/html; Charset=ISO-8859-1' }), useSecurityHeaders()]),
      ENDPOINT,
    );
    expect(page.headers['content-type']).toBe('text/html; Charset=ISO-8859-1');
    expect(page.headers['x-frame-options']).toBe('DENY');
  });

  it("replaces the type of Yoga's GraphiQL page, which it spells Content-Type, rather than adding a second one", async () => {
    const response = await yogaWith([useSecurityHeaders()]).fetch(ENDPOINT, { headers: { accept: 'text/html' } });
    expect([...response.headers].filter(([name]) => name.toLowerCase() === 'content-type')).toEqual([
      ['content-type', 'text/html; charset=utf-8'],
    ]);
  });

  it("gives Yoga's GraphiQL page the policy", async () => {
    const page = await send(yogaWith([useSecurityHeaders()]), ENDPOINT, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers).toMatchObject({ 'content-type': 'text/html; charset=utf-8', 'x-content-type-options': 'nosniff', ...PAGE_POLICY });
  });
});
