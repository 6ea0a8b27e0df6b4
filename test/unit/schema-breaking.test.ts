import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runSchemaBreaking } from '../../scripts/schema-breaking.js';

/**
 * `npm run schema:breaking` on hand-made schemas, manifests and usage files: each rule, each file it
 * refuses, and both report formats, exactly. test/ops/schema-breaking.test.ts runs it on manifests
 * made by graphql-codegen and Apollo's generator.
 */
const SCHEMA = readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8');
const folder = mkdtempSync(join(tmpdir(), 'schema-breaking-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const file = (name: string, text: string) => {
  writeFileSync(join(folder, name), text);
  return join(folder, name);
};
/** schema.graphql with lines added right after `after`. */
const schemaWith = (after: string, ...lines: string[]) => {
  expect(SCHEMA).toContain(after);
  return SCHEMA.replace(after, [after, ...lines].join('\n'));
};
const TODAY = '2026-11-26';
const run = (...argv: string[]) => runSchemaBreaking(argv, TODAY);

const API_KEY = 'type ApiKey implements AuditedRecord {';
const KEYS = 'query Keys { apiKeys(first: 2) { nodes { id name } } }';
const LABELS = 'query Labels { apiKeys { nodes { id label } } }';
/** The committed schema and a field deprecated until a day that has passed. */
const base = file(
  'base.graphql',
  schemaWith(API_KEY, '  """Old name."""', '  label: String! @deprecated(reason: "Use name instead. Sunset: 2026-06-30.")'),
);
const keys = file('keys.json', JSON.stringify({ 'sha256:aa': KEYS }));
const labels = file('labels.json', JSON.stringify({ 'sha256:bb': LABELS, 'sha256:aa': KEYS }));
const usage = (coordinates: Record<string, Record<string, number>>) =>
  file('usage.json', JSON.stringify({ format: 'vms-gateway-field-usage', version: 1, coordinates }));
const heading = (baseFile: string, next: string, operations: string, manifests: string, usageLine = '') =>
  `Breaking changes from ${baseFile} to ${next}, checked against ${operations} of ${manifests}${usageLine}.\n`;

describe('schema:breaking, the rules', () => {
  it('passes a removal that no registered operation and no traffic uses, after its sunset, as "safe: unused"', async () => {
    expect(await run('--base', base, '--manifest', keys, '--usage', usage({ 'ApiKey.name': { web: 12 } }))).toEqual({
      code: 0,
      stderr: '',
      stdout: `${heading(base, 'the schema the code builds', '1 registered operation', '1 manifest', `, and ${folder}/usage.json (at least 1 request)`)}
Breaking changes (1):
  ApiKey.label: Field 'label' (deprecated) was removed from object type 'ApiKey'
    deprecated in the base schema, sunset 2026-06-30
    safe: unused

Passed: 1 breaking change, all safe: unused.
`,
    });
  });

  it('fails a registered operation that no longer validates, naming its manifest, name, hash and the coordinate that broke it', async () => {
    expect(await run('--base', base, '--manifest', labels)).toEqual({
      code: 1,
      stderr: '',
      stdout: `${heading(base, 'the schema the code builds', '2 registered operations', '1 manifest')}
Broken operations (1):
  Labels (sha256:bb) in ${labels}, at ApiKey.label:
    Cannot query field "label" on type "ApiKey". Did you mean "name"?

Breaking changes (1):
  ApiKey.label: Field 'label' (deprecated) was removed from object type 'ApiKey'
    used by 1 registered operation:
      Labels (sha256:bb) in ${labels}, broken
    deprecated in the base schema, sunset 2026-06-30

Failed: 1 broken operation; 1 breaking change used by registered operations.
`,
    });
  });

  it('fails a change that traffic uses, from --min-requests requests on, even when no manifest has it', async () => {
    const used = usage({ 'ApiKey.label': { web: 2, ios: 1 }, 'ApiKey.name': { web: 40 } });
    const report = (
      minRequests: number,
      verdict: string,
    ) => `${heading(base, 'the schema the code builds', '1 registered operation', '1 manifest', `, and ${used} (at least ${minRequests} requests)`)}
Breaking changes (1):
  ApiKey.label: Field 'label' (deprecated) was removed from object type 'ApiKey'
${verdict}`;
    expect(await run('--base', base, '--manifest', keys, '--usage', used, '--min-requests', '3')).toEqual({
      code: 1,
      stderr: '',
      stdout: report(
        3,
        `    used by traffic: 3 requests (ios: 1, web: 2)
    deprecated in the base schema, sunset 2026-06-30

Failed: 1 breaking change used by traffic.
`,
      ),
    });
    expect(await run('--base', base, '--manifest', keys, '--usage', used, '--min-requests', '4')).toEqual({
      code: 0,
      stderr: '',
      stdout: report(
        4,
        `    used by traffic: 3 requests (ios: 1, web: 2), fewer than --min-requests 4
    deprecated in the base schema, sunset 2026-06-30
    safe: unused

Passed: 1 breaking change, all safe: unused.
`,
      ),
    });
  });

  it('refuses to remove a field or enum value that was not deprecated, or before its sunset, even when nothing uses it', async () => {
    const early = file(
      'early.graphql',
      schemaWith(
        API_KEY,
        '  """Nickname."""',
        '  nickname: String! @deprecated(reason: "Use name instead. Sunset: 2027-03-31.")',
        '  """Alias."""',
        '  alias: String!',
      ).replace('enum UserRole {', 'enum UserRole {\n  """Guest."""\n  GUEST'),
    );
    expect(await run('--base', early, '--manifest', keys)).toEqual({
      code: 1,
      stderr: '',
      stdout: `${heading(early, 'the schema the code builds', '1 registered operation', '1 manifest')}
Breaking changes (3):
  ApiKey.alias: Field 'alias' was removed from object type 'ApiKey'
    removed without deprecation: deprecate it, with a sunset date, before removing it
  ApiKey.nickname: Field 'nickname' (deprecated) was removed from object type 'ApiKey'
    removed before its sunset date, 2027-03-31
  UserRole.GUEST: Enum value 'GUEST' was removed from enum 'UserRole'
    removed without deprecation: deprecate it, with a sunset date, before removing it

Failed: 2 removals without deprecation; 1 removal before its sunset date.
`,
    });
    expect((await runSchemaBreaking(['--base', early, '--manifest', keys], '2027-03-31')).stdout).toContain(
      `  ApiKey.nickname: Field 'nickname' (deprecated) was removed from object type 'ApiKey'
    deprecated in the base schema, sunset 2027-03-31
    safe: unused
`,
    );
  });

  it('puts a new required argument at the field whose operations it breaks', async () => {
    const next = file(
      'required-argument.graphql',
      SCHEMA.replace('  apiKeys(\n', '  apiKeys(\n    """Tenant."""\n    tenant: String!\n\n'),
    );
    expect(await run('--base', 'schema.graphql', '--next', next, '--manifest', keys)).toEqual({
      code: 1,
      stderr: '',
      stdout: `${heading('schema.graphql', next, '1 registered operation', '1 manifest')}
Broken operations (1):
  Keys (sha256:aa) in ${keys}, at Query.apiKeys(tenant:):
    Field "apiKeys" argument "tenant" of type "String!" is required, but it was not provided.

Breaking changes (1):
  Query.apiKeys(tenant:): Argument 'tenant: String!' added to field 'Query.apiKeys'
    used by 1 registered operation:
      Keys (sha256:aa) in ${keys}, broken

Failed: 1 broken operation; 1 breaking change used by registered operations.
`,
    });
  });

  it('counts a new required input field as used by every operation that sends the input type, in a variable too', async () => {
    const next = file(
      'required-input.graphql',
      SCHEMA.replace('input CreateFolderInput {', 'input CreateFolderInput {\n  """Tenant."""\n  tenant: String!\n'),
    );
    const folders = file(
      'folders.json',
      JSON.stringify({
        'sha256:ee': 'mutation NewFolder($input: CreateFolderInput!) { createFolder(input: $input) { clientMutationId } }',
      }),
    );
    const { code, stdout } = await run('--base', 'schema.graphql', '--next', next, '--manifest', folders, '--json');
    expect(code).toBe(1);
    expect(stdout.endsWith('}\n')).toBe(true);
    expect(JSON.parse(stdout)).toEqual({
      format: 'vms-gateway-schema-breaking',
      version: 1,
      result: 'fail',
      base: 'schema.graphql',
      next,
      manifests: [{ file: folders, format: 'graphql-codegen-persisted-documents', operations: 1 }],
      usage: null,
      brokenOperations: [],
      breakingChanges: [
        {
          coordinate: 'CreateFolderInput.tenant',
          type: 'INPUT_FIELD_ADDED',
          message: "Input field 'tenant' of type 'String!' was added to input object type 'CreateFolderInput'",
          operations: [{ manifest: folders, name: 'NewFolder', hash: 'sha256:ee', broken: false }],
          requests: null,
          deprecation: null,
          problems: ['registered-operations'],
        },
      ],
    });
  });
});

describe('schema:breaking, the files it refuses', () => {
  it('exits 2 naming the file and the reason, for a schema, a manifest or a usage file it cannot use', async () => {
    const refusal = async (...argv: string[]) => {
      const { code, stdout, stderr } = await run(...argv);
      expect([code, stdout]).toEqual([2, '']);
      return stderr;
    };
    const missing = join(folder, 'missing.json');
    expect(await refusal('--base', file('bad.graphql', 'type Query {'), '--manifest', keys)).toBe(
      `schema:breaking: ${folder}/bad.graphql: not a GraphQL schema (Syntax Error: Expected Name, found <EOF>.).\n`,
    );
    expect(await refusal('--base', file('no-query.graphql', 'type Foo { a: Int }'), '--manifest', keys)).toBe(
      `schema:breaking: ${folder}/no-query.graphql: not a valid GraphQL schema (Query root type must be provided.).\n`,
    );
    const typo = file(
      'typo.graphql',
      schemaWith(API_KEY, '  """Old."""', '  old: String! @deprecated(reason: "Gone. Sunset: 2026-13-01.")'),
    );
    expect(await refusal('--base', typo, '--manifest', keys)).toBe(
      `schema:breaking: ${typo}: ApiKey.old: The deprecation reason "Gone. Sunset: 2026-13-01." names a sunset day that does not exist.\n`,
    );
    expect(await refusal('--base', base, '--manifest', missing)).toBe(`schema:breaking: ${missing}: cannot be read (ENOENT).\n`);
    expect(await refusal('--base', base, '--manifest', file('truncated.json', '{"sha256:aa": "query'))).toBe(
      `schema:breaking: ${folder}/truncated.json: not JSON, line 1: "{\\"sha256:aa\\": \\"query".\n`,
    );
    expect(await refusal('--base', base, '--manifest', file('trailing.json', `{\n  "sha256:aa": "${KEYS}",\n}\n`))).toBe(
      `schema:breaking: ${folder}/trailing.json: not JSON, line 3: "}".\n`,
    );
    const long = `{"sha256:aa": "${'x'.repeat(100)}"} and more`;
    expect(await refusal('--base', base, '--manifest', file('long.json', `\n\n${long}\n`))).toBe(
      `schema:breaking: ${folder}/long.json: not JSON, line 3: ${JSON.stringify(`${long.slice(0, 60)}…`)}.\n`,
    );
    expect(await refusal('--base', base, '--manifest', file('list.json', '["query { __typename }"]'))).toBe(
      `schema:breaking: ${folder}/list.json: neither an Apollo persisted query manifest nor a graphql-codegen one (an object of hashes to documents).\n`,
    );
    expect(await refusal('--base', base, '--manifest', file('empty.json', '{}'))).toBe(
      `schema:breaking: ${folder}/empty.json: the manifest holds no operation.\n`,
    );
    const apollo = (manifest: unknown) => file('apollo.json', JSON.stringify(manifest));
    expect(
      await refusal('--base', base, '--manifest', apollo({ format: 'apollo-persisted-query-manifest', version: 2, operations: [] })),
    ).toBe(
      `schema:breaking: ${folder}/apollo.json: not an Apollo persisted query manifest (version 1): version: Invalid input: expected 1.\n`,
    );
    const operation = { id: 'cc', name: 'Keys', type: 'query', body: 'query Keys { apiKeys { nodes { id } }' };
    expect(
      await refusal(
        '--base',
        base,
        '--manifest',
        apollo({ format: 'apollo-persisted-query-manifest', version: 1, operations: [operation] }),
      ),
    ).toBe(`schema:breaking: ${folder}/apollo.json: the document cc does not parse (Syntax Error: Expected Name, found <EOF>.).\n`);
    expect(await refusal('--base', base, '--manifest', file('two.json', JSON.stringify({ 'sha256:dd': `${KEYS} ${LABELS}` })))).toBe(
      `schema:breaking: ${folder}/two.json: the document sha256:dd holds 2 operations, not one.\n`,
    );
    expect(await refusal('--base', base, '--manifest', keys, '--usage', file('usage.json', '{"format":"other","version":1}'))).toBe(
      `schema:breaking: ${folder}/usage.json: not a vms-gateway-field-usage file, version 1 (format: Invalid input: expected "vms-gateway-field-usage").\n`,
    );
    expect(await refusal('--base', base, '--manifest', keys, '--usage', usage({ 'Query.apiKeys(first)': { web: 1 } }))).toBe(
      `schema:breaking: ${folder}/usage.json: "Query.apiKeys(first)" is not a schema coordinate.\n`,
    );
    expect(await refusal('--base', base, '--manifest', keys, '--usage', usage({ 'ApiKey.name': { web: -1 } }))).toBe(
      `schema:breaking: ${folder}/usage.json: not a vms-gateway-field-usage file, version 1 (coordinates > ApiKey.name > web: Too small: expected number to be >=0).\n`,
    );
    const prototypeClient = file(
      'prototype-usage.json',
      '{"format": "vms-gateway-field-usage", "version": 1, "coordinates": {"ApiKey.name": {"__proto__": "many"}}}',
    );
    expect(await refusal('--base', base, '--manifest', keys, '--usage', prototypeClient)).toBe(
      `schema:breaking: ${prototypeClient}: not a vms-gateway-field-usage file, version 1 (coordinates > ApiKey.name > __proto__: Invalid input: expected number, received string).\n`,
    );
    expect(await refusal('--base', base, '--manifest', keys, '--usage', usage({ 'ApiKey.name': [] } as never))).toBe(
      `schema:breaking: ${folder}/usage.json: not a vms-gateway-field-usage file, version 1 (coordinates > ApiKey.name: Invalid input: expected an object).\n`,
    );
  });

  it('exits 2 with the usage for options it cannot use', async () => {
    const usageLine =
      'usage: npm run schema:breaking -- --base <old schema.graphql> [--next <new schema.graphql>] --manifest <file>... [--usage <usage.json>] [--min-requests N] [--json] [--out <file>]';
    expect(await run('--manifest', keys)).toEqual({ code: 2, stdout: '', stderr: `schema:breaking: --base is required.\n${usageLine}\n` });
    expect(await run('--base', base)).toEqual({ code: 2, stdout: '', stderr: `schema:breaking: --manifest is required.\n${usageLine}\n` });
    expect(await run('--base', base, keys)).toEqual({
      code: 2,
      stdout: '',
      stderr: `schema:breaking: ${keys}: only --manifest takes more than one file.\n${usageLine}\n`,
    });
    expect(await run('--base', base, '--manifest', keys, '--min-requests', '0')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'schema:breaking: --min-requests is a whole number of at least 1, not "0".\n',
    });
    expect((await run('--base', base, '--manifest', keys, '--since', 'x')).stderr).toBe(
      `schema:breaking: Unknown option '--since'. To specify a positional argument starting with a '-', place it at the end of the command after '--', as in '-- "--since"\n${usageLine}\n`,
    );
  });
});
