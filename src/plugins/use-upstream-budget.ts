import {
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  getArgumentValues,
  getDirectiveValues,
  getOperationAST,
  getVariableValues,
  Kind,
  type SelectionSetNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GatewayContext } from '../context.js';
import { refusedBeforeRunning } from '../errors.js';
import type { RepresentationCount, UpstreamCallEstimate } from '../upstream/budget.js';

/**
 * MAX_UPSTREAM_CALLS, checked before execution: the root fields' estimates are summed (identical
 * reads count once, as the per-request DataLoader sends them once) and reserved from the HTTP
 * request's budget, which the operations of a batch share; an operation that does not fit is
 * answered LIMIT_EXCEEDED without a single upstream request. The Caller counts real calls too, so
 * an estimate that falls short still cannot fan out past the budget.
 *
 * The entity representations of `_entities` (subgraph mode) are reserved from the same budget
 * first: no more than its calls can find, so a list of 25,000 is refused here, whole, before a
 * single one is looked at.
 */
export function useUpstreamBudget(): Plugin<GatewayContext> {
  return {
    onExecute: ({ args, setResultAndStopExecution }) => {
      const { calls, representations } = estimateUpstreamCalls(args.schema, args.document, args.variableValues, args.operationName);
      const { budget } = args.contextValue.caller;
      const error = budget.reserveRepresentations(representations) ?? budget.reserve(calls);
      if (!error) return;
      setResultAndStopExecution({ errors: [refusedBeforeRunning(error)] });
    },
  };
}

type ExecuteArgs = Parameters<NonNullable<Plugin['onExecute']>>[0]['args'];

function estimateUpstreamCalls(
  schema: ExecuteArgs['schema'],
  document: ExecuteArgs['document'],
  rawVariables: ExecuteArgs['variableValues'],
  operationName: ExecuteArgs['operationName'],
): { calls: number; representations: number } {
  const nothing = { calls: 0, representations: 0 };
  const operation = getOperationAST(document, operationName);
  const rootType = operation && schema.getRootType(operation.operation);
  if (!operation || !rootType) return nothing;
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], rawVariables ?? {});
  // Bad variables fail execution on their own, before any resolver runs.
  if (coerced.errors) return nothing;
  const variables = coerced.coerced;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }

  const reads = new Set<string>();
  let total = 0;
  let representations = 0;
  const visit = (selectionSet: SelectionSetNode, seen: Set<string>) => {
    for (const selection of selectionSet.selections) {
      if (!included(selection, variables)) continue;
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
