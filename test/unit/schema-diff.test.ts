import { printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { compareSchemas, formatReport } from '../../scripts/schema-diff.js';
import { schema } from '../../src/schema/index.js';

const current = printSchema(schema);
const messages = async (base: string) => {
  const report = await compareSchemas(base, current);
  return {
    breaking: report.breaking.map((c) => c.message),
    dangerous: report.dangerous.map((c) => c.message),
    safe: report.safe.map((c) => c.message),
  };
};
/** The current schema with one line added right after `after`, as if the baseline had it. */
const baseWith = (after: string, line: string) => {
  expect(current).toContain(after);
  return current.replace(after, `${after}\n${line}`);
};

describe('schema:diff (graphql-inspector)', () => {
  it('reports no change against itself', async () => {
    expect(await messages(current)).toEqual({ breaking: [], dangerous: [], safe: [] });
    expect(formatReport(await compareSchemas(current, current), 'HEAD:schema.graphql')).toBe(
      'The schema is unchanged since HEAD:schema.graphql.',
    );
  });

  it('calls a removed field breaking', async () => {
    const base = baseWith('type ApiKey implements AuditedRecord {', '  legacyName: String!');
    expect(await messages(base)).toEqual({
      breaking: ["Field 'legacyName' was removed from object type 'ApiKey'"],
      dangerous: [],
      safe: [],
    });
  });

  it('calls removing a field that was deprecated dangerous, not breaking', async () => {
    const base = baseWith('type ApiKey implements AuditedRecord {', '  legacyName: String! @deprecated(reason: "Use name.")');
    const report = await messages(base);
    expect(report.breaking).toEqual([]);
    expect(report.dangerous).toEqual(["Field 'legacyName' (deprecated) was removed from object type 'ApiKey'"]);
  });

  it('calls a new enum value dangerous and a new optional input field safe', async () => {
    const base = current
      .replace('  """Okta."""\n  OKTA\n', '')
      .replace('  """New name, 1 to 40 characters."""\n  name: String\n\n  """New value', '  """New value');
    const report = await messages(base);
    expect(report.breaking).toEqual([]);
    expect(report.dangerous).toEqual(["Enum value 'OKTA' was added to enum 'IdentityProviderCompany'"]);
    expect(report.safe).toEqual([
      "Description 'Okta.' was added to enum value 'IdentityProviderCompany.OKTA'",
      "Input field 'name' of type 'String' was added to input object type 'UpdateCategoryInput'",
      "Input field 'UpdateCategoryInput.name' has description 'New name, 1 to 40 characters.'",
    ]);
  });
});
