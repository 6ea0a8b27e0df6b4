import { describe, expect } from 'vitest';
import { AUTH, bearer } from '../support/auth.js';
import { gatewayOverUpstream } from '../support/fixtures.js';
import { metricLines } from '../support/gateway.js';
import { envelope } from '../support/recording-upstream.js';
import { apiKeyRecord, serviceRecord } from '../support/records.js';

/**
 * gateway_graphql_field_requests_total over real HTTP: what operations that ran for an accepted
 * token used, their variables' enum values and input fields too, with the client label bounded as
 * the other metrics'.
 */
const KEYS = 'query Keys { apiKeys(first: 1) { edges { node { id } } } }';
const CREATE = 'mutation Create($input: CreateServiceInput!) { createService(input: $input) { service { id } } }';

const it = gatewayOverUpstream((request) =>
  request.method === 'POST' ? { body: envelope(serviceRecord({ provider: 'tiktok' })) } : { body: envelope([apiKeyRecord(1)]) },
);

/** The field usage samples, as `coordinate client=count`, in the order /metrics writes them. */
async function usage(gateway: { metricsUrl: string }): Promise<string[]> {
  return (await metricLines(gateway, 'gateway_graphql_field_requests_total')).map((line) =>
    line.replace(/^gateway_graphql_field_requests_total\{coordinate="([^"]*)",client="([^"]*)"\} (\d+)$/, '$1 $2=$3'),
  );
}

describe('gateway_graphql_field_requests_total over HTTP', () => {
  it('counts the enum values and input fields an operation sends in its variables, which its text does not show', async ({
    start,
    upstream,
  }) => {
    const gateway = await start.gateway({ upstreamUrl: new URL(upstream.url) });
    const answer = await gateway.graphql(CREATE, { variables: { input: { name: 'Clips', provider: 'TIKTOK' } }, headers: AUTH });
    expect(answer.body).toEqual({ data: { createService: { service: { id: 'svc_1' } } } });
    expect(await usage(gateway)).toEqual([
      'CreateServiceInput.name none=1',
      'CreateServiceInput.provider none=1',
      'CreateServicePayload.service none=1',
      'Mutation.createService none=1',
      'Mutation.createService(input:) none=1',
      'Service.id none=1',
      'ServiceProvider.TIKTOK none=1',
    ]);
  });

  it('counts nothing for an operation refused before it ran, or run for a token the REST API refused', async ({ start, upstream }) => {
    const gateway = await start.gateway({ upstreamUrl: new URL(upstream.url) });
    expect((await gateway.graphql('{ apiKeys(first: 1) { nope } }', { headers: AUTH })).status).toBe(400);
    expect((await gateway.graphql(KEYS)).body).toMatchObject({ errors: [{ extensions: { code: 'UNAUTHENTICATED' } }] });
    upstream.answer(() => ({ status: 401, body: { success: false, result: null, errors: [{ message: 'bad token' }], links: {} } }));
    expect((await gateway.graphql(KEYS, { headers: bearer('forged') })).body).toMatchObject({
      errors: [{ extensions: { code: 'UNAUTHENTICATED' } }],
    });
    expect(await usage(gateway)).toEqual([]);
  });

  it('labels only the clients METRICS_CLIENT_NAMES lists, whatever names 30 callers send', async ({ start, upstream }) => {
    const gateway = await start.gateway({ production: true, upstreamUrl: new URL(upstream.url), metricsClientNames: ['web-app'] });
    const named = (name: string) => ({ ...AUTH, 'apollographql-client-name': name, 'apollographql-client-version': '1.0' });
    for (let i = 0; i < 30; i++) await gateway.graphql(KEYS, { headers: named(`squatter-${i}`) });
    await gateway.graphql(KEYS, { headers: named('web-app') });
    const coordinates = ['ApiKey.id', 'ApiKeyConnection.edges', 'ApiKeyEdge.node', 'Query.apiKeys', 'Query.apiKeys(first:)'];
    expect(await usage(gateway)).toEqual([
      ...coordinates.map((coordinate) => `${coordinate} other=30`),
      ...coordinates.map((coordinate) => `${coordinate} web-app=1`),
    ]);
  });
});
