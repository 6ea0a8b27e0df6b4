import { memoize1 } from '@graphql-tools/utils';
import {
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLInputType,
  type GraphQLSchema,
  getOperationAST,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  Kind,
  type OperationDefinitionNode,
  typeFromAST,
  visit,
} from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { fieldCoordinate, operationCoordinates } from '../field-usage.js';
import { mergedHeaders, NOTICE_HEADERS } from '../http/merged-headers.js';
import { type DeprecationUse, recordOf } from '../observability/operation-record.js';
import { schemaDeprecations } from '../schema/deprecation.js';

/**
 * What an operation that runs uses of the schema, on its record: the schema coordinates it selects
 * and passes (`operationCoordinates`, once per document and operation), with the enum values and
 * input fields its variables send (the use a document hides in variables), for
 * `gateway_graphql_field_requests_total`. Those that are deprecated (`deprecated` in
 * src/schema/deprecation.ts) give its answer `Deprecation` (RFC 9745), `Sunset` (RFC 8594) and a
 * `Link` with `rel="deprecation"` (useUpstreamHeaders writes them), and `extensions.deprecations`,
 * and are counted by client in `gateway_graphql_deprecated_requests_total`.
 */
export function useFieldUsage(): Plugin {
  return {
    onExecute: ({ args }) => {
      const record = recordOf(args.contextValue);
      const operation = getOperationAST(args.document, args.operationName);
      if (!operation) return;
      const used = new Set(coordinatesOf(args.schema, args.document, operation));
      variableCoordinates(args.schema, operation, args.variableValues ?? {}, used);
      record.coordinates = [...used].sort();
      const deprecated = deprecationsOf(args.schema);
      const uses: DeprecationUse[] = [];
      for (const coordinate of record.coordinates) {
        const notice = deprecated.get(coordinate);
        if (notice) uses.push({ coordinate, ...notice });
      }
      if (uses.length === 0) return;
      record.deprecations = uses;
      record.noticeHeaders = noticeHeaders(uses);
      // Within execution, so that the answer useResponseCache keeps has them; an answer in parts has them in its headers only.
      return {
        onExecuteDone: ({ result, setResult }) => {
          if (!isAsyncIterable(result)) setResult({ ...result, extensions: { ...result.extensions, deprecations: uses } });
        },
      };
    },
  };
}

/** Each document's coordinates, by the name of the operation that uses them (`''` for an anonymous one). */
const coordinatesByOperation = memoize1((_document: DocumentNode) => new Map<string, readonly string[]>());

/** What `operation` of `document` uses: the operation with the fragments it spreads, and nothing of the document's other operations. */
function coordinatesOf(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): readonly string[] {
  const byOperation = coordinatesByOperation(document);
  const name = operation.name?.value ?? '';
  let coordinates = byOperation.get(name);
  if (coordinates === undefined) {
    coordinates = operationCoordinates(schema, { kind: Kind.DOCUMENT, definitions: [operation, ...fragmentsOf(document, operation)] });
    byOperation.set(name, coordinates);
  }
  return coordinates;
}

/** The fragments an operation spreads, those they spread included. */
function fragmentsOf(document: DocumentNode, operation: OperationDefinitionNode): FragmentDefinitionNode[] {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const spread = new Map<string, FragmentDefinitionNode>();
  const walk = (node: OperationDefinitionNode | FragmentDefinitionNode) =>
    visit(node, {
      FragmentSpread(spreadNode) {
        const fragment = fragments.get(spreadNode.name.value);
        if (!fragment || spread.has(fragment.name.value)) return;
        spread.set(fragment.name.value, fragment);
        walk(fragment);
      },
    });
  walk(operation);
  return [...spread.values()];
}

/** Adds to `used` the enum values and input fields the operation's variables send. */
function variableCoordinates(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
  used: Set<string>,
) {
  const visitValue = (type: GraphQLInputType, value: unknown): void => {
    if (value === null || value === undefined) return;
    if (isNonNullType(type)) {
      visitValue(type.ofType, value);
      return;
    }
    if (isListType(type)) {
      for (const item of Array.isArray(value) ? value : [value]) visitValue(type.ofType, item);
      return;
    }
    if (isEnumType(type) && typeof value === 'string' && type.getValue(value)) used.add(fieldCoordinate(type.name, value));
    if (!isInputObjectType(type) || typeof value !== 'object' || Array.isArray(value)) return;
    const fields = type.getFields();
    for (const [name, fieldValue] of Object.entries(value)) {
      const field = fields[name];
      if (!field) continue;
      used.add(fieldCoordinate(type.name, name));
      visitValue(field.type, fieldValue);
    }
  };
  for (const definition of operation.variableDefinitions ?? []) {
    const type = typeFromAST(schema, definition.type);
    if (type) visitValue(type as GraphQLInputType, variables[definition.variable.name.value]);
  }
}

/** Each schema's deprecations, found once. */
const deprecationsOf = memoize1(schemaDeprecations);

/** The answer headers of the deprecations an operation uses, merged as the REST API's are: the earliest dates, every link once. */
function noticeHeaders(uses: readonly DeprecationUse[]): Record<string, string> {
  const sources = uses.map(({ since, sunset, link }) => ({
    ...(since ? { deprecation: `@${Date.parse(`${since}T00:00:00Z`) / 1000}` } : {}),
    ...(sunset ? { sunset: new Date(`${sunset}T00:00:00Z`).toUTCString() } : {}),
    ...(link ? { link: `<${link}>; rel="deprecation"` } : {}),
  }));
  return mergedHeaders(sources, NOTICE_HEADERS);
}
