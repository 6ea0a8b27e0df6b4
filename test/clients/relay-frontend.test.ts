import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect } from 'vitest';
import { appFolder, blocksBetween, CLIENTS_RELAY_STEP, followSteps } from '../support/app-folder.js';
import { gatewayOverSandbox } from '../support/fixtures.js';

/**
 * The Relay set-up of docs/clients.md run as written, in a fresh app folder: its install lines (each
 * package one this repository has), its copy command, its relay.config.json, its documents and
 * environment, relay-compiler and `tsc`; then the app's own code, run against the sandbox.
 */
const CLIENTS = readFileSync(new URL('../../docs/clients.md', import.meta.url), 'utf8');
const steps = blocksBetween(CLIENTS, ...CLIENTS_RELAY_STEP);
const it = gatewayOverSandbox();

/** The test's own use of the app's code: the first keys, through the environment the doc shows. */
const RUN = `import { createEnvironment, firstKeys } from './relay';

const environment = createEnvironment(process.env.GRAPHQL_URL!, () => process.env.GRAPHQL_TOKEN!);
console.log(JSON.stringify(await firstKeys(environment, 2)));
`;

describe("docs/clients.md's Relay set-up", () => {
  it('shows the installs, relay.config.json, the documents, the environment and the commands that check them', () => {
    expect(steps.map(({ language, file }) => `${language}:${file ?? ''}`)).toEqual([
      'sh:',
      'json:',
      'ts:src/documents.ts',
      'ts:src/relay.ts',
      'sh:',
    ]);
  });

  it('compiles, type-checks and runs in a fresh app, as written', { timeout: 120_000 }, async ({ gateway }) => {
    const app = await appFolder();
    try {
      // The doc names the JSON block relay.config.json (JSON holds no comment to say so).
      await followSteps(app, steps, { 'relay.config.json': steps.find(({ language }) => language === 'json')!.text });
      expect(readFileSync(`${app.path}/src/__generated__/ApiKeysQuery.graphql.ts`, 'utf8')).toContain('export type ApiKeysQuery$data');
      await app.write('src/run.ts', RUN);
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/run.ts'], {
        cwd: app.path,
        env: { ...process.env, GRAPHQL_URL: gateway.url, GRAPHQL_TOKEN: gateway.sandbox!.token },
      });
      expect(JSON.parse(stdout)).toEqual({
        apiKeys: {
          nodes: [
            { id: 'ak_001', name: 'API key 1' },
            { id: 'ak_002', name: 'API key 2' },
          ],
          pageInfo: { hasNextPage: true, endCursor: expect.any(String) },
        },
      });
    } finally {
      await app.close();
    }
  });
});
