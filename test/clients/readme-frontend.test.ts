import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { appFolder, blocksBetween, followSteps, type Packages, README_APP_STEP } from '../support/app-folder.js';

/**
 * Step 4 of the README's tour run as written, in a fresh app folder: its install lines (each
 * package must be one this repository has, whose node_modules the folder uses), its copy command,
 * its `codegen.ts` and query, codegen and `tsc`. A file of the test's own then uses the result, to
 * prove the types are real rather than `any`.
 */
const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const step = blocksBetween(README, ...README_APP_STEP);

/**
 * The step with the packages a reader installs today, from the registry, runs where CI=true (.ci/run
 * sets it), or with FRESH_INSTALL=true: it needs the registry and takes half a minute more.
 */
const run = promisify(execFile);
const FRESH = process.env.CI === 'true' || process.env.FRESH_INSTALL === 'true';
if (!FRESH)
  console.warn('The README step 4 test with a fresh install from the npm registry runs under CI=true or FRESH_INSTALL=true; skipped.');

const USE = `import type { ResultOf, VariablesOf } from '@graphql-typed-document-node/core';
import { ApiKeys } from './api-keys';

type Keys = ResultOf<typeof ApiKeys>;
export const names = (keys: Keys): string[] => keys.apiKeys?.edges.map((edge) => edge.node.name) ?? [];
export const next = (keys: Keys): string | null | undefined => keys.apiKeys?.pageInfo.endCursor;
export const variables: VariablesOf<typeof ApiKeys> = { after: 'YzE6MDo' };
// @ts-expect-error the schema has no such field, so neither has the generated type
export const nope = (keys: Keys) => keys.apiKeys?.edges[0]?.node.nope;
`;

describe("the README's frontend step", () => {
  it('shows the install and copy commands, codegen.ts, a query and the commands that check it', () => {
    expect(step.map(({ language, file }) => `${language}:${file ?? ''}`)).toEqual([
      'sh:',
      'jsonc:tsconfig.json',
      'ts:codegen.ts',
      'ts:src/api-keys.ts',
      'sh:',
    ]);
  });

  /** The step followed in a fresh app with its packages from `packages`; what the app holds after it. */
  const typesAQuery = async (packages: Packages) => {
    const app = await appFolder(packages);
    try {
      await followSteps(app, step, { 'src/use.ts': USE });
      const generated = readFileSync(`${app.path}/src/gql/graphql.ts`, 'utf8');
      expect(generated).toContain('export type ApiKeysQuery');
      expect(Object.values(JSON.parse(readFileSync(`${app.path}/src/gql/persisted-documents.json`, 'utf8')))).toHaveLength(1);
      const { dependencies, devDependencies } = JSON.parse(readFileSync(`${app.path}/package.json`, 'utf8')) as Record<
        string,
        Record<string, string> | undefined
      >;
      return { ...dependencies, ...devDependencies };
    } finally {
      await app.close();
    }
  };

  it("types a query in a fresh app, as written, with this repository's packages", { timeout: 120_000 }, async () => {
    await typesAQuery('repository');
  });

  it.runIf(FRESH)(
    'types a query in a fresh app, as written, with the packages a fresh install gets from the registry',
    { timeout: 300_000 },
    async () => {
      const installed = await typesAQuery('registry');
      // What a reader gets today: the newest version of every package the step installs (TypeScript 7 in 2026).
      const newest = await Promise.all(
        Object.keys(installed).map(async (name) => [name, `^${(await run('npm', ['view', name, 'version'])).stdout.trim()}`]),
      );
      expect(installed).toEqual(Object.fromEntries(newest));
      expect(Object.keys(installed).sort()).toEqual([
        '@graphql-codegen/cli',
        '@graphql-codegen/client-preset',
        '@graphql-typed-document-node/core',
        'graphql',
        'typescript',
      ]);
    },
  );
});
