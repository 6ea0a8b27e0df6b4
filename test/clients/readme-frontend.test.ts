import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { appFolder, blocksBetween, followSteps } from '../support/app-folder.js';

/**
 * Step 4 of the README's tour run as written, in a fresh app folder: its install lines (each
 * package must be one this repository has, whose node_modules the folder uses), its copy command,
 * its `codegen.ts` and query, codegen and `tsc`. A file of the test's own then uses the result, to
 * prove the types are real rather than `any`.
 */
const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const step = blocksBetween(README, '**4. A typed client in a frontend app.**', '## ');

const USE = `import type { ResultOf, VariablesOf } from '@graphql-typed-document-node/core';
import { ApiKeys } from './api-keys';

type Keys = ResultOf<typeof ApiKeys>;
export const names = (keys: Keys): string[] => keys.apiKeys?.nodes.map((key) => key.name) ?? [];
export const next = (keys: Keys): string | null | undefined => keys.apiKeys?.pageInfo.endCursor;
export const variables: VariablesOf<typeof ApiKeys> = { after: 'YzE6MDo' };
// @ts-expect-error the schema has no such field, so neither has the generated type
export const nope = (keys: Keys) => keys.apiKeys?.nodes[0]?.nope;
`;

describe("the README's frontend step", () => {
  it('shows the install and copy commands, codegen.ts, a query and the commands that check it', () => {
    expect(step.map(({ language, file }) => `${language}:${file ?? ''}`)).toEqual(['sh:', 'ts:codegen.ts', 'ts:src/api-keys.ts', 'sh:']);
  });

  it('types a query in a fresh app, as written', { timeout: 120_000 }, async () => {
    const app = await appFolder();
    try {
      await followSteps(app, step, { 'src/use.ts': USE });
      const generated = readFileSync(`${app.path}/src/gql/graphql.ts`, 'utf8');
      expect(generated).toContain('export type ApiKeysQuery');
      expect(Object.values(JSON.parse(readFileSync(`${app.path}/src/gql/persisted-documents.json`, 'utf8')))).toHaveLength(1);
    } finally {
      await app.close();
    }
  });
});
