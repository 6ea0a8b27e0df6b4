/**
 * `npm run schema:breaking`: which breaking changes between two schemas break what clients really
 * send. The registered operations of their manifests are validated against the new schema, the
 * coordinates the changes touch are looked up in those operations and in the field usage the
 * gateway counted, and removals are held to the deprecation lifecycle. No network.
 *
 *   npm run schema:breaking -- --base <old schema.graphql> [--next <new schema.graphql>]
 *     --manifest <file>... [--usage <usage.json>] [--min-requests N] [--json] [--out <file>]
 *
 * Exit 0: no breaking change, or only ones nothing uses ("safe: unused"). Exit 1: a registered
 * operation no longer validates, a breaking change is used by a registered operation or by
 * traffic, or a removal skips the lifecycle. Exit 2: a file or an option it cannot use.
 */
import { type Change, CriticalityLevel } from '@graphql-inspector/core';
import { type GraphQLSchema, getNamedType, isEnumType, isInputObjectType, isInterfaceType, isObjectType, validate } from 'graphql';
import { argumentCoordinate, coordinatesByNode, fieldCoordinate, operationCoordinates } from '../src/field-usage.js';
import { deprecationOf } from '../src/schema/deprecation.js';
import { type ClientManifest, type RegisteredOperation, readClientManifest } from './client-manifests.js';
import {
  type CommandResult,
  changeCoordinate,
  codeSchema,
  commandLine,
  InputError,
  plural,
  readSchema,
  runAsScript,
  schemaChanges,
  writeOutput,
} from './schema-changes.js';
import { readUsageFile, type UsageCounts } from './usage-file.js';

export const REPORT_FORMAT = 'vms-gateway-schema-breaking';

/** Why a breaking change fails the check. */
export type Problem = 'registered-operations' | 'traffic' | 'not-deprecated' | 'before-sunset';

export interface OperationRef {
  manifest: string;
  name: string;
  hash: string;
}

export interface BrokenOperation extends OperationRef {
  /** The schema coordinates that broke it: the breaking changes its errors are at, else where the errors point. */
  coordinates: string[];
  errors: string[];
}

export interface BreakingChange {
  coordinate: string;
  /** @graphql-inspector/core's change type and message. */
  type: string;
  message: string;
  /** The registered operations that use the coordinate; `broken` when one no longer validates. */
  operations: (OperationRef & { broken: boolean })[];
  /** Operations counted by the usage file, by client; null without `--usage`. */
  requests: { total: number; clients: Record<string, number> } | null;
  /** For a removed field or enum value: its deprecation in the base schema, or null when it had none. */
  deprecation: { reason: string; sunset: string | null } | null;
  problems: Problem[];
}

export interface BreakingReport {
  format: typeof REPORT_FORMAT;
  version: 1;
  result: 'pass' | 'fail';
  base: string;
  next: string;
  manifests: { file: string; format: ClientManifest['format']; operations: number }[];
  usage: { file: string; minRequests: number } | null;
  brokenOperations: BrokenOperation[];
  breakingChanges: BreakingChange[];
}

export interface BreakingInput {
  base: { label: string; schema: GraphQLSchema };
  next: { label: string; schema: GraphQLSchema };
  manifests: ClientManifest[];
  usage: { file: string; counts: UsageCounts } | undefined;
  minRequests: number;
  /** The day it is, YYYY-MM-DD in UTC, for sunset dates. */
  today: string;
}

/** Whether a use of `used` is a use of what `changed` names: the same coordinate, or one inside it (`ApiKey` holds `ApiKey.name`). */
const covers = (changed: string, used: string) => used === changed || used.startsWith(`${changed}.`) || used.startsWith(`${changed}(`);

export async function checkBreaking(input: BreakingInput): Promise<BreakingReport> {
  const { base, next, manifests, usage, minRequests, today } = input;
  const changes = (await schemaChanges(base.schema, next.schema))
    .filter((change) => change.criticality.level === CriticalityLevel.Breaking)
    .map((change) => ({ change, coordinate: changeCoordinate(change) ?? 'schema', affects: affectedBy(change, base.schema) }));

  const operations = manifests.flatMap((manifest) => manifest.operations);
  const used = new Map(operations.map((operation) => [operation, operationCoordinates(base.schema, operation.document)]));
  const brokenOperations: BrokenOperation[] = [];
  const brokenBy = new Map<RegisteredOperation, Set<string>>();
  for (const operation of operations) {
    const errors = validate(next.schema, operation.document);
    if (errors.length === 0) continue;
    const atBase = coordinatesByNode(base.schema, operation.document);
    const atNext = coordinatesByNode(next.schema, operation.document);
    const coordinates = new Set<string>();
    for (const error of errors) {
      for (const node of error.nodes ?? []) {
        const at = atBase.get(node) ?? atNext.get(node);
        if (at === undefined) continue;
        const causes = changes.filter(
          ({ coordinate, affects }) => affects.some((affected) => covers(affected, at)) || covers(at, coordinate),
        );
        for (const cause of causes.length > 0 ? causes.map((c) => c.coordinate) : [at]) coordinates.add(cause);
      }
    }
    brokenBy.set(operation, coordinates);
    brokenOperations.push({ ...refOf(operation), coordinates: [...coordinates].sort(), errors: errors.map((error) => error.message) });
  }

  const breakingChanges = changes.map(({ change, coordinate, affects }): BreakingChange => {
    const users = operations.filter(
      (operation) =>
        brokenBy.get(operation)?.has(coordinate) || used.get(operation)!.some((at) => affects.some((affected) => covers(affected, at))),
    );
    const requests = usage && requestsFor(affects, usage.counts);
    const deprecation = removedDeprecation(change, base);
    const problems: Problem[] = [];
    if (users.length > 0) problems.push('registered-operations');
    if (requests && requests.total >= minRequests) problems.push('traffic');
    if (deprecation === null) problems.push('not-deprecated');
    else if (deprecation?.sunset != null && today < deprecation.sunset) problems.push('before-sunset');
    return {
      coordinate,
      type: change.type,
      message: change.message,
      operations: users.map((operation) => ({ ...refOf(operation), broken: brokenBy.has(operation) })),
      requests: requests ?? null,
      deprecation: deprecation ?? null,
      problems,
    };
  });
  breakingChanges.sort((a, b) => compare(a.coordinate, b.coordinate) || compare(a.type, b.type) || compare(a.message, b.message));

  const failed = brokenOperations.length > 0 || breakingChanges.some((change) => change.problems.length > 0);
  return {
    format: REPORT_FORMAT,
    version: 1,
    result: failed ? 'fail' : 'pass',
    base: base.label,
    next: next.label,
    manifests: manifests.map(({ file, format, operations }) => ({ file, format, operations: operations.length })),
    usage: usage ? { file: usage.file, minRequests } : null,
    brokenOperations,
    breakingChanges,
  };
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const refOf = ({ manifest, name, hash }: RegisteredOperation): OperationRef => ({ manifest, name, hash });

/**
 * The coordinates whose use a change breaks. Mostly its own; but a new required argument, or an
 * argument whose type changed, breaks every use of its field, and a new required input field, or
 * an input field whose type changed, every place the input type is sent.
 */
function affectedBy(change: Change, base: GraphQLSchema): string[] {
  const own = changeCoordinate(change) ?? 'schema';
  switch (change.type) {
    case 'FIELD_ARGUMENT_ADDED':
    case 'FIELD_ARGUMENT_TYPE_CHANGED':
      return [fieldCoordinate(change.meta.typeName, change.meta.fieldName)];
    case 'INPUT_FIELD_ADDED':
    case 'INPUT_FIELD_TYPE_CHANGED':
      return [change.meta.inputName, ...placesTaking(change.meta.inputName, base)];
    default:
      return [own];
  }
}

/** The arguments and input fields an input type is sent in, directly or inside another input type. */
function placesTaking(input: string, schema: GraphQLSchema, seen = new Set<string>()): string[] {
  if (seen.has(input)) return [];
  seen.add(input);
  const places: string[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        for (const arg of field.args)
          if (getNamedType(arg.type).name === input) places.push(argumentCoordinate(type.name, field.name, arg.name));
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) {
        if (getNamedType(field.type).name === input)
          places.push(fieldCoordinate(type.name, field.name), ...placesTaking(type.name, schema, seen));
      }
    }
  }
  return places;
}

/** Per client, the most operations any one of the coordinates counted: a lower bound of the operations that used them. */
function requestsFor(affects: string[], counts: UsageCounts): { total: number; clients: Record<string, number> } {
  const clients = new Map<string, number>();
  for (const [coordinate, byClient] of counts) {
    if (!affects.some((affected) => covers(affected, coordinate))) continue;
    for (const [client, count] of byClient) clients.set(client, Math.max(clients.get(client) ?? 0, count));
  }
  // Object.fromEntries defines each client as the object's own key, `__proto__` too.
  const sorted = Object.fromEntries([...clients].sort(([a], [b]) => compare(a, b)));
  return { total: [...clients.values()].reduce((sum, count) => sum + count, 0), clients: sorted };
}

/**
 * For the removal of a field or enum value, its deprecation in the base schema (null when it had
 * none); undefined for any other change, which the lifecycle does not cover. A base whose
 * deprecation reason names a sunset that cannot be read is an `InputError`.
 */
function removedDeprecation(change: Change, base: BreakingInput['base']): BreakingChange['deprecation'] | undefined {
  let element: { deprecationReason?: string | null | undefined } | undefined;
  if (change.type === 'FIELD_REMOVED') {
    const type = base.schema.getType(change.meta.typeName);
    element = isObjectType(type) || isInterfaceType(type) ? type.getFields()[change.meta.removedFieldName] : undefined;
  } else if (change.type === 'ENUM_VALUE_REMOVED') {
    const type = base.schema.getType(change.meta.enumName);
    element = isEnumType(type) ? (type.getValue(change.meta.removedEnumValueName) ?? undefined) : undefined;
  }
  if (!element) return undefined;
  let notice: ReturnType<typeof deprecationOf>;
  try {
    notice = deprecationOf(element);
  } catch (error) {
    throw new InputError(`${base.label}: ${changeCoordinate(change)}: ${(error as Error).message}`);
  }
  return notice ? { reason: notice.reason, sunset: notice.sunset ?? null } : null;
}

const operationLine = (operation: OperationRef) => `${operation.name} (${operation.hash}) in ${operation.manifest}`;

/** The report as people read it. */
export function formatReport(report: BreakingReport): string {
  const operations = report.manifests.reduce((sum, manifest) => sum + manifest.operations, 0);
  const usage = report.usage ? `, and ${report.usage.file} (at least ${plural(report.usage.minRequests, 'request')})` : '';
  const lines = [
    `Breaking changes from ${report.base} to ${report.next}, checked against ${plural(operations, 'registered operation')} of ${plural(report.manifests.length, 'manifest')}${usage}.`,
  ];
  if (report.brokenOperations.length > 0) {
    lines.push('', `Broken operations (${report.brokenOperations.length}):`);
    for (const operation of report.brokenOperations) {
      const at = operation.coordinates.length > 0 ? operation.coordinates.join(', ') : 'no schema coordinate';
      lines.push(`  ${operationLine(operation)}, at ${at}:`, ...operation.errors.map((error) => `    ${error}`));
    }
  }
  if (report.breakingChanges.length > 0) {
    lines.push('', `Breaking changes (${report.breakingChanges.length}):`);
    for (const change of report.breakingChanges) {
      lines.push(`  ${change.coordinate}: ${change.message}`);
      if (change.operations.length > 0) {
        lines.push(`    used by ${plural(change.operations.length, 'registered operation')}:`);
        for (const operation of change.operations) lines.push(`      ${operationLine(operation)}${operation.broken ? ', broken' : ''}`);
      }
      if (change.requests && change.requests.total > 0) {
        const clients = Object.entries(change.requests.clients).map(([client, count]) => `${client}: ${count}`);
        const few = change.problems.includes('traffic') ? '' : `, fewer than --min-requests ${report.usage!.minRequests}`;
        lines.push(`    used by traffic: ${plural(change.requests.total, 'request')} (${clients.join(', ')})${few}`);
      }
      if (change.problems.includes('not-deprecated')) {
        lines.push('    removed without deprecation: deprecate it, with a sunset date, before removing it');
      } else if (change.problems.includes('before-sunset')) {
        lines.push(`    removed before its sunset date, ${change.deprecation!.sunset}`);
      } else if (change.deprecation) {
        lines.push(`    deprecated in the base schema${change.deprecation.sunset ? `, sunset ${change.deprecation.sunset}` : ''}`);
      }
      if (change.problems.length === 0) lines.push('    safe: unused');
    }
  }
  lines.push('', verdictOf(report));
  return `${lines.join('\n')}\n`;
}

function verdictOf(report: BreakingReport): string {
  const changes = report.breakingChanges;
  if (report.result === 'pass') {
    return changes.length === 0 ? 'Passed: no breaking change.' : `Passed: ${plural(changes.length, 'breaking change')}, all safe: unused.`;
  }
  const count = (problem: Problem) => changes.filter((change) => change.problems.includes(problem)).length;
  const failures = [
    report.brokenOperations.length > 0 && plural(report.brokenOperations.length, 'broken operation'),
    count('registered-operations') > 0 && `${plural(count('registered-operations'), 'breaking change')} used by registered operations`,
    count('traffic') > 0 && `${plural(count('traffic'), 'breaking change')} used by traffic`,
    count('not-deprecated') > 0 && `${plural(count('not-deprecated'), 'removal')} without deprecation`,
    count('before-sunset') > 0 && `${plural(count('before-sunset'), 'removal')} before its sunset date`,
  ].filter(Boolean);
  return `Failed: ${failures.join('; ')}.`;
}

const USAGE =
  'usage: npm run schema:breaking -- --base <old schema.graphql> [--next <new schema.graphql>] --manifest <file>... [--usage <usage.json>] [--min-requests N] [--json] [--out <file>]';

interface Options {
  base: string;
  next: string | undefined;
  manifests: string[];
  usage: string | undefined;
  minRequests: number;
  json: boolean;
  /** Where the report goes instead of standard output. */
  out: string | undefined;
}

/** The options, `--manifest` taking one or more files (`--manifest a.json b.json`, or repeated). */
export function optionsOf(argv: string[]): Options {
  const { values, manifests } = commandLine(
    argv,
    {
      base: { type: 'string' },
      next: { type: 'string' },
      manifest: { type: 'string', multiple: true },
      usage: { type: 'string' },
      'min-requests': { type: 'string' },
      json: { type: 'boolean' },
      out: { type: 'string' },
    },
    USAGE,
  );
  if (values.base === undefined) throw new InputError(`--base is required.\n${USAGE}`);
  if (manifests.length === 0) throw new InputError(`--manifest is required.\n${USAGE}`);
  const minRequests = values['min-requests'] ?? '1';
  if (!/^[1-9]\d*$/.test(minRequests))
    throw new InputError(`--min-requests is a whole number of at least 1, not ${JSON.stringify(minRequests)}.`);
  return {
    base: values.base,
    next: values.next,
    manifests,
    usage: values.usage,
    minRequests: Number(minRequests),
    json: values.json ?? false,
    out: values.out,
  };
}

/** The whole command, for the CLI and for tests: its exit code and what it prints. */
export async function runSchemaBreaking(argv: string[], today = new Date().toISOString().slice(0, 10)): Promise<CommandResult> {
  try {
    const options = optionsOf(argv);
    const base = { label: options.base, schema: readSchema(options.base) };
    const next = options.next
      ? { label: options.next, schema: readSchema(options.next) }
      : { label: 'the schema the code builds', schema: await codeSchema() };
    const manifests = options.manifests.map(readClientManifest);
    const usage = options.usage === undefined ? undefined : { file: options.usage, counts: readUsageFile(options.usage) };
    const report = await checkBreaking({ base, next, manifests, usage, minRequests: options.minRequests, today });
    const text = options.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report);
    if (options.out !== undefined) writeOutput(options.out, text);
    const stdout = options.out === undefined ? text : `schema:breaking: wrote ${options.out}: ${verdictOf(report)}\n`;
    return { code: report.result === 'pass' ? 0 : 1, stdout, stderr: '' };
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    return { code: 2, stdout: '', stderr: `schema:breaking: ${error.message}\n` };
  }
}

await runAsScript(import.meta.url, runSchemaBreaking);
