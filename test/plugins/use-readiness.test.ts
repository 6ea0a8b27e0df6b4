import type { Plugin } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { useReadiness } from '../../src/plugins/use-readiness.js';
import { post, send, yogaWith } from '../support/yoga.js';

describe('useReadiness', () => {
  it('answers GET /ready with 200 and a JSON status, before any GraphQL work', async () => {
    let parsed = 0;
    const countParses: Plugin = { onRequestParse: () => void parsed++ };
    const answer = await send(yogaWith([useReadiness(), countParses]), 'http://yoga/ready');
    expect(answer).toEqual({
      status: 200,
      headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': '18' },
      body: { status: 'ready' },
    });
    expect(parsed).toBe(0);
  });

  it('answers at the endpoint it is given, and only there', async () => {
    const yoga = yogaWith([useReadiness({ endpoint: '/healthz/ready' })]);
    expect((await send(yoga, 'http://yoga/healthz/ready')).body).toEqual({ status: 'ready' });
    expect((await send(yoga, 'http://yoga/readyz')).status).toBe(404);
  });

  it('leaves the GraphQL endpoint to Yoga', async () => {
    expect((await post(yogaWith([useReadiness()]), { query: '{ hello }' })).body).toEqual({ data: { hello: 'Hello world' } });
  });

  it('answers its path only, not a URL that merely ends in it', async () => {
    const { body } = await send(yogaWith([useReadiness()]), 'http://yoga/graphql?query={hello}&from=/ready');
    expect(body).toEqual({ data: { hello: 'Hello world' } });
  });
});
