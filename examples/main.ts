/**
 * Runs the typed client against a running gateway: `npm start` in one terminal, then
 * `npx tsx examples/main.ts` in another. Read-only, so it is safe against a real upstream.
 *
 *   GRAPHQL_URL       default http://localhost:4000/graphql
 *   GRAPHQL_TOKEN     default sandbox-token (the embedded sandbox's token)
 *   TRUSTED_DOCUMENTS set to "true" when the gateway only runs trusted documents
 */
import { createVmsClient, listAllApiKeys } from './client.js';

const client = createVmsClient({
  url: process.env.GRAPHQL_URL ?? 'http://localhost:4000/graphql',
  token: process.env.GRAPHQL_TOKEN ?? 'sandbox-token',
  trustedDocuments: process.env.TRUSTED_DOCUMENTS === 'true',
});

try {
  const keys = await listAllApiKeys(client, 25);
  console.log(`${keys.length} API keys; the first ones:`);
  for (const key of keys.slice(0, 5)) console.log(`  ${key.id}  ${key.name}  (${key.permissions.length ? 'read-only' : 'read-write'})`);
} catch (error) {
  const codes = error instanceof Error && 'codes' in error ? ` [${String(error.codes)}]` : '';
  console.error(`The example client failed: ${error instanceof Error ? error.message : String(error)}${codes}`);
  process.exitCode = 1;
}
