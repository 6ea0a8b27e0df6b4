import { memoize1 } from '@graphql-tools/utils';
import {
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
  getOperationAST,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  type OperationDefinitionNode,
  separateOperations,
  typeFromAST,
} from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { fieldCoordinate, operationCoordinates } from '../field-usage.js';
import { mergedHeaders, NOTICE_HEADERS } from '../http/merged-headers.js';
import { type DeprecationUse, recordOf } from '../operation-record.js';
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
      const operation = getOperationAST(args.document, args.operationName);
      if (!operation) return;
      let usage = documentUsage(args.schema, args.document, operation);
      // Only what the variables send is worked out per request, and only for an operation that has any.
      if (operation.variableDefinitions?.length) {
        const used = new Set(usage.coordinates);
        variableCoordinates(args.schema, operation, args.variableValues ?? {}, used);
        if (used.size > usage.coordinates.length) usage = usageOf(args.schema, [...used].sort());
      }
      const record = recordOf(args.contextValue);
      record.coordinates = usage.coordinates;
      const { deprecations } = usage;
      if (deprecations.length === 0) return;
      record.deprecations = deprecations;
      record.noticeHeaders = usage.noticeHeaders;
      // Within execution, so that the answer useResponseCache keeps has them; an answer in parts has them in its headers only.
      return {
        onExecuteDone: ({ result, setResult }) => {
          if (!isAsyncIterable(result)) setResult({ ...result, extensions: { ...result.extensions, deprecations } });
        },
      };
    },
  };
}

/** What an operation uses of the schema (sorted), which of it is deprecated, and the answer headers that says. */
interface Usage {
  coordinates: readonly string[];
  deprecations: readonly DeprecationUse[];
  noticeHeaders: Record<string, string> | undefined;
}

/**
 * Each document's operations, each alone with the fragments it spreads (graphql's
 * `separateOperations`, keyed by name, `''` for an anonymous one), and what each uses once found.
 */
const operationsOf = memoize1((document: DocumentNode) => ({
  separated: separateOperations(document),
  usage: new Map<string, Usage>(),
}));

/** What `operation` of `document` uses as written, its variables aside: found once per document and operation. */
function documentUsage(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): Usage {
  const { separated, usage } = operationsOf(document);
  const name = operation.name?.value ?? '';
  let found = usage.get(name);
  if (found === undefined) {
    found = usageOf(schema, operationCoordinates(schema, separated[name]!));
    usage.set(name, found);
  }
  return found;
}

/** The usage of `coordinates`: those that are deprecated, and their headers. */
function usageOf(schema: GraphQLSchema, coordinates: readonly string[]): Usage {
  const deprecated = deprecationsOf(schema);
  const deprecations = coordinates.flatMap((coordinate) => {
    const notice = deprecated.get(coordinate);
    return notice ? [{ coordinate, ...notice }] : [];
  });
  return { coordinates, deprecations, noticeHeaders: deprecations.length > 0 ? noticeHeaders(deprecations) : undefined };
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
