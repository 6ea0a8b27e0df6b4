import { startGateway } from './test/support/gateway.js';
const g = await startGateway({ upstreamUrl: new URL('http://127.0.0.1:9/v2'), introspection: true });
const a = await g.graphql('{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }');
console.log(JSON.stringify(a.body));
await g.close();
