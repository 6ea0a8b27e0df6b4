import type { Plugin } from '@envelop/core';
import { useGraphQlJit } from '@envelop/graphql-jit';
import { memoize1 } from '@graphql-tools/utils';
import { type DocumentNode, GraphQLError, getOperationAST, Kind, type Source, type ValidationRule, valueFromASTUntyped } from 'graphql';
import { copiedError } from '../errors.js';
import { incrementalDirectivesOf } from '../schema/incremental-delivery.js';

/**
 * Executes each operation through a function graphql-jit compiled for its document (cached per
 * parsed document, which Yoga's parse cache keeps stable): when it was added it cut the CPU per
 * request of apiKeys(first: 25) from about 470 to 310 µs in the benchmark.
 *
 * graphql-jit's errors carry ready-made `locations` but no `nodes`, `source` or `positions`, and
 * Yoga rebuilds every error from those when it writes the answer, which would drop the locations.
 * So after execution each such error becomes a graphql-js error at the same place, keeping its
 * message, path, extensions and original error (which error masking and useUpstreamErrors read).
 *
 * graphql-jit also refuses an omitted non-null variable that declares a default
 * (`query ($n: Int! = 2)`), which the spec accepts; declared defaults are filled in first. And it
 * throws on an operation type the schema lacks (a `subscription`), where graphql-js answers an
 * error: such operations are refused while validating, as graphql-js 17 does.
 *
 * graphql-jit cannot execute `@defer` or `@stream` either: a document that carries them is left
 * to Yoga's own executor (@graphql-tools/executor), which answers them in parts.
 */
export function useJit(): Plugin {
  const jit = useGraphQlJit();
  return {
    ...jit,
    onValidate: ({ addValidationRule }) => addValidationRule(KnownOperationTypesRule),
    onExecute: (payload) => {
      if (incrementalDirectivesOf(payload.args.document).length > 0) return;
      payload.args.variableValues = withDeclaredDefaults(payload.args.document, payload.args.operationName, payload.args.variableValues);
      payload.args.document = documentPerOperation(payload.args.document, payload.args.operationName);
      void jit.onExecute!(payload);
      const source = payload.args.document.loc?.source;
      return {
        onExecuteDone: ({ result, setResult }) => {
          if (!source || !('errors' in result) || !result.errors?.length) return;
          // No data at all means execution never began (variable coercion failed): a request
          // error, which graphql-js' executor marks as HTTP 400 and graphql-jit does not.
          const requestError = !('data' in result);
          if (!requestError && !result.errors.some(isJitError)) return;
          setResult({
            ...result,
            errors: result.errors.map((error) => (requestError || isJitError(error) ? rebuilt(error, source, requestError) : error)),
          });
        },
      };
    },
  };
}

/** Each document's copies per operation name, made once and released with it. */
const copiesOf = memoize1((_document: DocumentNode) => new Map<string, DocumentNode>());

/**
 * @envelop/graphql-jit caches the compiled function by document alone, yet compiles only the
 * operation the first request named: after `query A {…} query B {…}` had run A, asking for B ran A
 * again. So each named operation of a document with several reaches it as a copy of its own (the
 * same definitions, another identity), compiled once and released with the document. Yoga refuses
 * a name the document lacks before execution; such a name gets no copy, so the copies stay bounded
 * by the document's own operations whatever callers send.
 */
function documentPerOperation(document: DocumentNode, operationName: string | null | undefined): DocumentNode {
  if (!operationName) return document;
  const names: string[] = [];
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION) names.push(definition.name?.value ?? '');
  }
  if (names.length < 2 || !names.includes(operationName)) return document;
  const copies = copiesOf(document);
  let copy = copies.get(operationName);
  if (copy === undefined) {
    copy = { ...document };
    copies.set(operationName, copy);
  }
  return copy;
}

/** An operation whose type (query, mutation, subscription) has no root type in the schema. */
const KnownOperationTypesRule: ValidationRule = (context) => ({
  OperationDefinition(node) {
    if (context.getSchema().getRootType(node.operation)) return;
    context.reportError(new GraphQLError(`This schema has no ${node.operation} operations.`, { nodes: node }));
  },
});

function withDeclaredDefaults(
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | null | undefined,
) {
  const definitions = getOperationAST(document, operationName)?.variableDefinitions ?? [];
  let filled = variables ?? undefined;
  for (const { variable, defaultValue } of definitions) {
    if (defaultValue && (filled == null || filled[variable.name.value] === undefined)) {
      filled = { ...filled, [variable.name.value]: valueFromASTUntyped(defaultValue) };
    }
  }
  return filled;
}

function isJitError(error: GraphQLError): boolean {
  return error.nodes === undefined && error.positions === undefined && (error.locations?.length ?? 0) > 0;
}

function rebuilt(error: GraphQLError, source: Source, requestError: boolean): GraphQLError {
  return copiedError(error, {
    source,
    positions: error.locations?.map(({ line, column }) => offsetOf(source.body, line, column)),
    extensions: requestError ? { ...error.extensions, http: { status: 400 } } : error.extensions,
  });
}

/** The character offset of a 1-based line and column, as graphql-js counts lines (\r\n, \n or \r). */
function offsetOf(body: string, line: number, column: number): number {
  const lineStart = /\r\n|[\n\r]/g;
  let offset = 0;
  for (let current = 1; current < line; current++) {
    if (lineStart.exec(body) === null) break;
    offset = lineStart.lastIndex;
  }
  return offset + column - 1;
}
