/**
 * What the schema scripts share: reading their files, failing with exit 2 on one they cannot use,
 * a schema from a file or from the code, and @graphql-inspector/core's list of the changes
 * between two schemas (`npm run schema:diff`, `npm run schema:breaking`), each at the schema
 * coordinate it changes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import { type Change, diff, type Rule } from '@graphql-inspector/core';
import { buildSchema, type GraphQLSchema, printSchema, validateSchema } from 'graphql';
import { type ParseError, parseTree } from 'jsonc-parser';
import { argumentCoordinate, directiveCoordinate, fieldCoordinate } from '../src/field-usage.js';

/** A file the command cannot use: it exits 2 with the file and the reason. */
export class InputError extends Error {}

/**
 * A command line read with `options`, `--manifest` taking one or more files (`--manifest a.json
 * b.json`, or repeated): a mistake is an InputError followed by the command's `usage`.
 */
export function commandLine<T extends ParseArgsOptionsConfig>(argv: string[], options: T, usage: string) {
  const config = { args: argv, allowPositionals: true, tokens: true, options } as const;
  let parsed: ReturnType<typeof parseArgs<typeof config>>;
  try {
    parsed = parseArgs(config);
  } catch (error) {
    throw new InputError(`${(error as Error).message}\n${usage}`);
  }
  const manifests: string[] = [];
  let last: string | undefined;
  for (const token of parsed.tokens) {
    if (token.kind === 'option') {
      last = token.name;
      if (token.name === 'manifest' && token.value !== undefined) manifests.push(token.value);
    } else if (token.kind === 'positional') {
      if (last !== 'manifest') throw new InputError(`${token.value}: only --manifest takes more than one file.\n${usage}`);
      manifests.push(token.value);
    }
  }
  return { values: parsed.values, manifests };
}

/** A file's text; a file that cannot be read names its system error code, never its content. */
export function readInput(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new InputError(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unknown error'}).`);
  }
}

/** The longest part of a file's line that an error shows. */
const SHOWN_LINE_LENGTH = 60;

/**
 * A JSON file's value. A file that is not JSON is refused with its first line that is not, cut
 * short (jsonc-parser finds where: JSON.parse says no more than a token for most mistakes). npm
 * prints a banner on standard output before a script's own output, so a file redirected from
 * `npm run` starts with one: the error says how to write the file instead.
 */
export function readJson(file: string): unknown {
  const text = readInput(file);
  try {
    return JSON.parse(text);
  } catch {
    const errors: ParseError[] = [];
    parseTree(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
    // A file cut short is wrong where it ends: on its last line with text, not after it.
    const offset = Math.min(errors[0]?.offset ?? 0, text.trimEnd().length);
    const number = text.slice(0, offset).split('\n').length;
    const line = text.split('\n')[number - 1]!.replace(/\r$/, '');
    const shown = line.length > SHOWN_LINE_LENGTH ? `${line.slice(0, SHOWN_LINE_LENGTH)}…` : line;
    const banner = line.startsWith('> ') ? " (npm's banner: write the file with --out)" : '';
    throw new InputError(`${file}: not JSON, line ${number}: ${JSON.stringify(shown)}${banner}.`);
  }
}

/** Writes a command's output to `file` (its `--out`); a file that cannot be written names its system error code. */
export function writeOutput(file: string, text: string): void {
  try {
    writeFileSync(file, text);
  } catch (error) {
    throw new InputError(`${file}: cannot be written (${(error as NodeJS.ErrnoException).code ?? 'unknown error'}).`);
  }
}

/** `1 file`, `2 files`. */
export const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** What a command does, as its exit code and what it prints, so that tests run it in process. */
export interface CommandResult {
  code: 0 | 1 | 2;
  stdout: string;
  stderr: string;
}

/** Runs `command` with the process' arguments when `module` is the script node started. */
export async function runAsScript(module: string, command: (argv: string[]) => Promise<CommandResult>): Promise<void> {
  if (module !== pathToFileURL(process.argv[1] ?? '').href) return;
  const { code, stdout, stderr } = await command(process.argv.slice(2));
  process.stdout.write(stdout);
  process.stderr.write(stderr);
  process.exitCode = code;
}

/** A schema from an SDL file, checked as a server would check it. */
export function readSchema(file: string): GraphQLSchema {
  const sdl = readInput(file);
  let schema: GraphQLSchema;
  try {
    schema = buildSchema(sdl);
  } catch (error) {
    throw new InputError(`${file}: not a GraphQL schema (${(error as Error).message.split('\n')[0]}).`);
  }
  const [invalid] = validateSchema(schema);
  if (invalid) throw new InputError(`${file}: not a valid GraphQL schema (${invalid.message.split('\n')[0]}).`);
  return schema;
}

/** The schema the code builds now, as SDL, so that it compares with a file the way schema.graphql would. */
export async function codeSchema(): Promise<GraphQLSchema> {
  const { schema } = await import('../src/schema/index.js');
  return buildSchema(printSchema(schema));
}

export const schemaChanges = (base: GraphQLSchema, next: GraphQLSchema, rules: Rule[] = []): Promise<Change[]> => diff(base, next, rules);

/**
 * The schema coordinate a change is at: inspector's path (`Type.field.argument`, `@directive.argument`)
 * in the spec's syntax. Changes to the schema definition itself have no path and no coordinate.
 */
export function changeCoordinate(change: Change): string | undefined {
  if (!change.path) return undefined;
  const [first, second, third] = change.path.split('.') as [string, string | undefined, string | undefined];
  if (first === '') return undefined;
  if (first.startsWith('@')) return directiveCoordinate(first.slice(1), second);
  // A directive used on an element (`Type.@key`, `Type.field.@deprecated`) is a change of that element.
  if (second === undefined || second.startsWith('@')) return first;
  if (third === undefined || third.startsWith('@')) return fieldCoordinate(first, second);
  return argumentCoordinate(first, second, third);
}
