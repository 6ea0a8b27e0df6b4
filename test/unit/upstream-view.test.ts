import { describe, expect, it } from 'vitest';
import { redactedBody, UpstreamViews } from '../../src/observability/upstream-view.js';
import { OperationRecord } from '../../src/operation-record.js';
import { recordCalls } from '../support/summaries.js';

describe('the body of a write shown with X-Debug-Upstream', () => {
  it('redacts the values of members named like a secret, at any depth, as query parameters are, and keeps the rest as it is', () => {
    expect(
      redactedBody({
        name: 'N',
        apiKey: 'k',
        settings: { client_secret: { nested: true }, tags: ['a', { accessToken: 't', page: 2 }] },
        permissions: ['fetch'],
        count: 0,
        none: null,
      }),
    ).toEqual({
      name: 'N',
      apiKey: '[redacted]',
      settings: { client_secret: '[redacted]', tags: ['a', { accessToken: '[redacted]', page: 2 }] },
      permissions: ['fetch'],
      count: 0,
      none: null,
    });
  });

  it('sizes every body, shows one of at most 4 KiB, and only sizes a longer one', () => {
    const record = new OperationRecord('r', { name: undefined, version: undefined });
    const fits = { certificate: 'c'.repeat(4096 - '{"certificate":""}'.length) };
    const larger = { certificate: `${fits.certificate}c` };
    recordCalls(record, [201], { method: 'POST', route: '/idps', path: '/idps', body: fits });
    recordCalls(record, [201], { method: 'POST', route: '/idps', path: '/idps', body: larger });
    recordCalls(record, [200]);
    expect(new UpstreamViews().next(record).calls.map(({ bodyBytes, body }) => ({ bodyBytes, body }))).toEqual([
      { bodyBytes: 4096, body: fits },
      { bodyBytes: 4097, body: undefined },
      { bodyBytes: undefined, body: undefined },
    ]);
  });
});
