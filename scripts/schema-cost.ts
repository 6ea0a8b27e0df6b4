/**
 * `npm run schema:cost`: what each operation clients registered costs the REST API at most, in
 * calls, whatever its variables, read from the manifests their build tools write (both formats
 * `schema:breaking` reads), by the gateway's own estimate (`mostUpstreamCalls`): a root field
 * whose arguments a variable gives counts the most it can make. With `--max`, an operation above
 * it fails the check, so a change that makes a screen cost more is seen in review.
 *
 *   npm run schema:cost -- --manifest <file>... [--max N] [--json] [--out <file>]
 *
 * Exit codes: 0 every operation within `--max` (or no `--max`), 1 one above it, 2 bad input.
 */
import { getOperationAST } from 'graphql';
import { schema } from '../src/schema/index.js';
import { mostUpstreamCalls } from '../src/schema/upstream-calls.js';
import { readClientManifest } from './client-manifests.js';
import { type CommandResult, commandLine, InputError, plural, runAsScript, writeOutput } from './schema-changes.js';

const USAGE = 'usage: npm run schema:cost -- --manifest <file>... [--max N] [--json] [--out <file>]';

/** One registered operation and the most REST calls it can make. */
interface OperationCost {
  manifest: string;
  name: string;
  hash: string;
  type: 'query' | 'mutation' | 'subscription';
  mostCalls: number;
}

export interface CostReport {
  max: number | null;
  operations: OperationCost[];
  /** The operations above `max`. */
  over: OperationCost[];
  result: 'pass' | 'fail';
}

interface Options {
  manifests: string[];
  max: number | undefined;
  json: boolean;
  out: string | undefined;
}

function optionsOf(argv: string[]): Options {
  const { values, manifests } = commandLine(
    argv,
    { manifest: { type: 'string', multiple: true }, max: { type: 'string' }, json: { type: 'boolean' }, out: { type: 'string' } },
    USAGE,
  );
  if (manifests.length === 0) throw new InputError(`--manifest is required.\n${USAGE}`);
  if (values.max !== undefined && !/^(0|[1-9]\d{0,5})$/.test(values.max)) {
    throw new InputError(`--max is a whole number of calls, not ${JSON.stringify(values.max)}.`);
  }
  return { manifests, max: values.max === undefined ? undefined : Number(values.max), json: values.json ?? false, out: values.out };
}

/** Each registered operation of the manifests with its most calls, most costly first. */
export function costReport(manifests: string[], max: number | undefined): CostReport {
  const operations = manifests
    .flatMap((file) => readClientManifest(file).operations)
    .map(({ manifest, name, hash, document }) => {
      const operationName = name === '(anonymous)' ? undefined : name;
      const type: OperationCost['type'] = getOperationAST(document, operationName)?.operation ?? 'query';
      return { manifest, name, hash, type, mostCalls: mostUpstreamCalls(schema, document, operationName) };
    })
    .sort((a, b) => b.mostCalls - a.mostCalls || a.name.localeCompare(b.name) || a.hash.localeCompare(b.hash));
  const over = max === undefined ? [] : operations.filter((operation) => operation.mostCalls > max);
  return { max: max ?? null, operations, over, result: over.length > 0 ? 'fail' : 'pass' };
}

export function formatCostReport(report: CostReport): string {
  const width = Math.max(...report.operations.map(({ name }) => name.length), 'Operation'.length);
  const lines = report.operations.map(
    ({ name, type, mostCalls, manifest }) => `${name.padEnd(width)}  ${String(mostCalls).padStart(5)}  ${type.padEnd(8)}  ${manifest}`,
  );
  const verdict =
    report.max === null
      ? `${plural(report.operations.length, 'registered operation')}; no --max given.`
      : report.over.length === 0
        ? `Passed: every operation within ${plural(report.max, 'call')}.`
        : `Failed: ${plural(report.over.length, 'operation')} above ${plural(report.max, 'call')}: ${report.over.map(({ name }) => name).join(', ')}.`;
  return [`${'Operation'.padEnd(width)}  ${'Calls'.padStart(5)}  Type      Manifest`, ...lines, '', verdict, ''].join('\n');
}

/** The whole command, for the CLI and for tests: its exit code and what it prints. */
export async function runSchemaCost(argv: string[]): Promise<CommandResult> {
  try {
    const options = optionsOf(argv);
    const report = costReport(options.manifests, options.max);
    const text = options.json ? `${JSON.stringify(report, null, 2)}\n` : formatCostReport(report);
    if (options.out !== undefined) writeOutput(options.out, text);
    const stdout =
      options.out === undefined ? text : `schema:cost: wrote ${options.out}: ${report.result === 'pass' ? 'passed' : 'failed'}.\n`;
    return { code: report.result === 'pass' ? 0 : 1, stdout, stderr: '' };
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    return { code: 2, stdout: '', stderr: `schema:cost: ${error.message}\n` };
  }
}

await runAsScript(import.meta.url, runSchemaCost);
