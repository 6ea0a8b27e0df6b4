import { describe, expect } from 'vitest';
import { AUTH } from '../support/auth.js';
import { gatewayOverUpstream } from '../support/fixtures.js';
import { captureLogs } from '../support/logs.js';
import { envelope } from '../support/recording-upstream.js';
import { UUID } from '../support/yoga.js';

const KEYS = 'query Keys { apiKeys(first: 1) { edges { node { id } } } }';

const logs = captureLogs('debug');
const requestIdTest = gatewayOverUpstream(() => ({ body: envelope([]) }), { logger: logs.logger });

describe('x-request-id', () => {
  const it = requestIdTest;

  it("keeps the caller's id: in the response, upstream and in every log line of the request", async ({ gateway, upstream }) => {
    const answer = await gateway.graphql(KEYS, { headers: { ...AUTH, 'x-request-id': 'client-id.42:a_b-c' } });
    expect(answer.body).toEqual({ data: { apiKeys: { edges: [] } } });
    expect(answer.headers.get('x-request-id')).toBe('client-id.42:a_b-c');
    expect(upstream.requests.at(-1)?.headers['x-request-id']).toBe('client-id.42:a_b-c');
    const lines = logs.lines().filter((line) => line.requestId === 'client-id.42:a_b-c');
    expect(lines.map((line) => line.msg)).toEqual(['upstream call', 'graphql request']);
  });

  it('makes one up when the caller sent none, and uses the same one everywhere', async ({ gateway, upstream }) => {
    const answer = await gateway.graphql(KEYS, { headers: AUTH });
    const id = answer.headers.get('x-request-id');
    expect(id).toMatch(UUID);
    expect(upstream.requests.map((request) => request.headers['x-request-id'])).toEqual([id]);
    expect(logs.lines('graphql request').at(-1)?.requestId).toBe(id);
  });

  it('replaces an id that is not a sane token', async ({ gateway, upstream }) => {
    const answer = await gateway.graphql(KEYS, { headers: { ...AUTH, 'x-request-id': 'two words; <script>' } });
    expect(answer.headers.get('x-request-id')).toMatch(UUID);
    expect(upstream.requests.at(-1)?.headers['x-request-id']).toBe(answer.headers.get('x-request-id'));
  });

  it('answers with an id even when no upstream call is made: errors, health, readiness', async ({ gateway }) => {
    const unauthenticated = await gateway.graphql(KEYS, { headers: { 'x-request-id': 'no-token-1' } });
    expect((unauthenticated.body.errors![0]!.extensions as { code: string }).code).toBe('UNAUTHENTICATED');
    expect(unauthenticated.headers.get('x-request-id')).toBe('no-token-1');
    const base = gateway.url.replace(/\/graphql$/, '');
    for (const path of ['/health', '/ready']) {
      const response = await fetch(base + path, { headers: { 'x-request-id': `probe${path.replace('/', '-')}` } });
      await response.arrayBuffer();
      expect([path, response.headers.get('x-request-id')]).toEqual([path, `probe${path.replace('/', '-')}`]);
    }
  });
});
