import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLIncludeDirective,
  type GraphQLSchema,
  GraphQLSkipDirective,
  getArgumentValues,
  getDirectiveValues,
  getOperationAST,
  getVariableValues,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type VariableNode,
} from 'graphql';
import type { RepresentationCount, UpstreamCallEstimate } from '../upstream/budget.js';

/**
 * What an operation costs the upstream, in REST calls, before it runs: each root field's estimate
 * (`extensions.upstreamCalls`, one call where a field declares none; `__typename` and introspection
 * none), identical reads counted once, as the per-request DataLoader sends them once. The
 * estimate is at least the calls the operation makes: useUpstreamBudget reserves it against
 * MAX_UPSTREAM_CALLS and charges it to the caller's rate limit; `schema:cost` reports each
 * registered operation's worst case over its variables.
 */
export interface UpstreamCallsEstimate {
  calls: number;
  /** The Federation entity representations `_entities` is asked to resolve. */
  representations: number;
}

/** An operation's upstream calls for these variables. */
export function estimateUpstreamCalls(
  schema: GraphQLSchema,
  document: DocumentNode,
  rawVariables: Record<string, unknown> | null | undefined,
  operationName: string | null | undefined,
): UpstreamCallsEstimate {
  const nothing = { calls: 0, representations: 0 };
  const operation = getOperationAST(document, operationName);
  if (!operation) return nothing;
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], rawVariables ?? {});
  // Bad variables fail execution on their own, before any resolver runs.
  if (coerced.errors) return nothing;
  return walk(schema, document, operation, coerced.coerced, undefined);
}

/**
 * An operation's most upstream calls, whatever its variables: a root field that takes an argument
 * from a variable counts its most (`extensions.mostUpstreamCalls`), one with every argument
 * written in the document its estimate; a field kept or dropped by a variable (`@include`,
 * `@skip`) counts.
 */
export function mostUpstreamCalls(schema: GraphQLSchema, document: DocumentNode, operationName?: string | null): number {
  const operation = getOperationAST(document, operationName);
  return operation ? walk(schema, document, operation, {}, mostOf).calls : 0;
}

/** A field's most calls, for arguments a variable gives. */
const mostOf = (extensions: Record<string, unknown>) => (extensions.mostUpstreamCalls as number | undefined) ?? 1;

/** The walk of an operation's root selections; `most`, for the worst case, reads a field that takes a variable by its declared most. */
function walk(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
  most: ((extensions: Record<string, unknown>) => number) | undefined,
): UpstreamCallsEstimate {
  const rootType = schema.getRootType(operation.operation);
  if (!rootType) return { calls: 0, representations: 0 };
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const reads = new Set<string>();
  let total = 0;
  let representations = 0;
  const visit = (selectionSet: SelectionSetNode, seen: Set<string>) => {
    for (const selection of selectionSet.selections) {
      if (most === undefined && !included(selection, variables)) continue;
      if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet, seen);
      else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value);
        if (fragment && !seen.has(fragment.name.value)) visit(fragment.selectionSet, new Set([...seen, fragment.name.value]));
      } else total += fieldCalls(selection);
    }
  };
  const fieldCalls = (field: FieldNode): number => {
    const definition = rootType.getFields()[field.name.value];
    if (!definition) return 0;
    if (most !== undefined && takesVariable(field)) return most(definition.extensions as Record<string, unknown>);
    let args: Record<string, unknown>;
    try {
      args = getArgumentValues(definition, field, variables);
    } catch {
      return 0; // execution reports the bad argument
    }
    const estimate = definition.extensions.upstreamCalls as UpstreamCallEstimate | undefined;
    const count = definition.extensions.representations as RepresentationCount | undefined;
    if (count) representations += count(args);
    const calls = estimate ? estimate(args) : 1;
    if (operation.operation !== 'query') return calls;
    const key = readKey(field.name.value, args);
    if (key === undefined) return calls;
    if (reads.has(key)) return 0;
    reads.add(key);
    return calls;
  };
  visit(operation.selectionSet, new Set());
  return { calls: total, representations };
}

/** Whether a field's arguments hold a variable anywhere. */
function takesVariable(field: FieldNode): boolean {
  let found = false;
  const look = (value: unknown): void => {
    if (found || value === null || typeof value !== 'object') return;
    if ((value as VariableNode).kind === Kind.VARIABLE) {
      found = true;
      return;
    }
    for (const child of Object.values(value)) look(child);
  };
  for (const argument of field.arguments ?? []) look(argument.value);
  return found;
}

/**
 * What identical reads share, or undefined for arguments JSON cannot write: an `_Any` value (an
 * entity representation) nested thousands deep overflows JSON.stringify's stack, and is counted
 * as a read of its own rather than failing the request.
 */
function readKey(field: string, args: Record<string, unknown>): string | undefined {
  try {
    return JSON.stringify([field, args]);
  } catch {
    return undefined;
  }
}

function included(node: { directives?: readonly unknown[] | undefined }, variables: Record<string, unknown>): boolean {
  const target = node as Parameters<typeof getDirectiveValues>[1];
  if (getDirectiveValues(GraphQLSkipDirective, target, variables)?.if === true) return false;
  return getDirectiveValues(GraphQLIncludeDirective, target, variables)?.if !== false;
}
