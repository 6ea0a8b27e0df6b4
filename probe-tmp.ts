import { startGateway } from './test/support/gateway.js';
const g = await startGateway({ upstreamUrl: new URL('http://127.0.0.1:9/v2') });
for (const q of ['subscription { apiKeys { totalCount } }', 'subscription S { __typename }', 'subscription { __schema { types { name } } }']) {
  const a = await g.graphql(q);
  console.log(a.status, JSON.stringify(a.body));
}
await g.close();
