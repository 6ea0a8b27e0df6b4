/**
 * `npm run schema:diff`: reports how the schema the code builds differs from a committed one, and
 * fails when a change breaks existing clients. The baseline is schema.graphql at a git revision
 * (HEAD unless `--base-ref <rev>`, e.g. origin/main) or a file (`--base <path>`).
 */
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { type Change, CriticalityLevel, DiffRule } from '@graphql-inspector/core';
import { buildSchema, printSchema } from 'graphql';
import { codeSchema, InputError, readInput, schemaChanges } from './schema-changes.js';

export interface SchemaReport {
  breaking: Change[];
  dangerous: Change[];
  safe: Change[];
}

/**
 * Removing a field that carries @deprecated counts as dangerous, not breaking: the deprecation was
 * the notice clients needed (see the breaking-change policy in docs/schema.md).
 */
export async function compareSchemas(baseSdl: string, currentSdl: string): Promise<SchemaReport> {
  const changes = await schemaChanges(buildSchema(baseSdl), buildSchema(currentSdl), [DiffRule.suppressRemovalOfDeprecatedField]);
  const at = (level: CriticalityLevel) => changes.filter((change) => change.criticality.level === level);
  return { breaking: at(CriticalityLevel.Breaking), dangerous: at(CriticalityLevel.Dangerous), safe: at(CriticalityLevel.NonBreaking) };
}

export function formatReport(report: SchemaReport, base: string): string {
  const total = report.breaking.length + report.dangerous.length + report.safe.length;
  if (total === 0) return `The schema is unchanged since ${base}.`;
  const section = (title: string, changes: Change[]) =>
    changes.length === 0
      ? []
      : [`${title} (${changes.length}):`, ...changes.map((c) => `  - ${c.message}${c.path ? `  [${c.path}]` : ''}`)];
  return [
    `Schema changes since ${base}:`,
    ...section('Breaking', report.breaking),
    ...section('Dangerous', report.dangerous),
    ...section('Safe', report.safe),
  ].join('\n');
}

function option(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : process.argv[index + 1];
}

async function main(): Promise<void> {
  const file = option('--base');
  const ref = option('--base-ref') ?? 'HEAD';
  const base = file ?? `${ref}:schema.graphql`;
  let baseSdl: string;
  try {
    baseSdl = file ? readInput(file) : execFileSync('git', ['show', base], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    console.error(error instanceof InputError ? `schema:diff: ${error.message}` : `schema:diff cannot read the baseline ${base}.`);
    process.exit(2);
  }
  const report = await compareSchemas(baseSdl, printSchema(await codeSchema()));
  console.log(formatReport(report, base));
  if (report.breaking.length > 0) {
    console.error('\nBreaking changes found: follow the breaking-change policy in docs/schema.md (deprecate first, remove later).');
    process.exit(1);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
