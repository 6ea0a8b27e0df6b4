import { memoize1 } from '@graphql-tools/utils';
import {
  DirectiveLocation,
  type DirectiveNode,
  type DocumentNode,
  type FieldNode,
  GraphQLBoolean,
  GraphQLDirective,
  GraphQLInt,
  GraphQLNonNull,
  type GraphQLResolveInfo,
  GraphQLString,
  getDirectiveValues,
  Kind,
  type SelectionSetNode,
  visit,
} from 'graphql';

/*
 * `@defer` and `@stream` as the incremental delivery RFC defines them, declared in the schema
 * itself rather than added at run time by Yoga's plugin, so that schema.graphql, introspection
 * and the tools that validate documents against the schema file (graphql-codegen, relay-compiler)
 * all know them. Not in the subgraph schema: a Federation router plans `@defer` itself and sends
 * its subgraphs plain operations.
 */

export const deferDirective = new GraphQLDirective({
  name: 'defer',
  description:
    'Sends this fragment in a later part of the answer (multipart/mixed or text/event-stream), once it is resolved, instead of holding the whole answer back for it.',
  locations: [DirectiveLocation.FRAGMENT_SPREAD, DirectiveLocation.INLINE_FRAGMENT],
  args: {
    if: { type: new GraphQLNonNull(GraphQLBoolean), defaultValue: true, description: 'Deferred when true; false sends it with the rest.' },
    label: { type: GraphQLString, description: 'Names the part that carries the fragment; unique in the operation.' },
  },
});

/** `@stream`, whose `initialCount` goes up to `maxInitialCount`. */
export function streamDirective(maxInitialCount: number): GraphQLDirective {
  return new GraphQLDirective({
    name: 'stream',
    description:
      'Sends the items of this list after the first `initialCount` in later parts of the answer (multipart/mixed or text/event-stream). ' +
      "`edges` and `nodes` of `apiKeys` stream as the upstream's pages arrive; any other list streams once it is resolved.",
    locations: [DirectiveLocation.FIELD],
    args: {
      if: { type: new GraphQLNonNull(GraphQLBoolean), defaultValue: true, description: 'Streamed when true; false sends the list whole.' },
      label: { type: GraphQLString, description: 'Names the parts that carry the items; unique in the operation.' },
      initialCount: {
        type: new GraphQLNonNull(GraphQLInt),
        defaultValue: 0,
        description: `Items sent before streaming begins, with the rest of the answer: 0 to ${maxInitialCount}.`,
      },
    },
  });
}

/**
 * The `@stream`ed fields among the fields a field node selects (through fragments too), per node
 * of a kept document. Not memoize1's: finding them takes the execution's fragments beside the node.
 */
const streamedChildren = new WeakMap<FieldNode, FieldNode[]>();

/**
 * Whether the operation streams one of `names` selected directly under the field being resolved
 * (`@stream` with `if` true), so that its resolver can hand the list over as it arrives. Most
 * operations stream nothing, and that is learnt once per document (its nodes are kept with it).
 */
export function streamsChild(info: GraphQLResolveInfo, names: readonly string[]): boolean {
  const field = info.fieldNodes[0]!;
  let streamed = streamedChildren.get(field);
  if (streamed === undefined) {
    streamed = [];
    for (const node of info.fieldNodes) if (node.selectionSet) collectStreamed(node.selectionSet, info, streamed, new Set());
    streamedChildren.set(field, streamed);
  }
  if (streamed.length === 0) return false;
  const directive = info.schema.getDirective('stream');
  if (!directive) return false;
  return streamed.some((node) => names.includes(node.name.value) && getDirectiveValues(directive, node, info.variableValues)?.if !== false);
}

function collectStreamed(selectionSet: SelectionSetNode, info: GraphQLResolveInfo, streamed: FieldNode[], spread: Set<string>): void {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.directives?.some((directive) => directive.name.value === 'stream')) streamed.push(selection);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      collectStreamed(selection.selectionSet, info, streamed, spread);
    } else if (!spread.has(selection.name.value)) {
      spread.add(selection.name.value);
      const fragment = info.fragments[selection.name.value];
      if (fragment) collectStreamed(fragment.selectionSet, info, streamed, spread);
    }
  }
}

/** Whether a directive node is `@defer` or `@stream`. */
export const isIncrementalDirective = (node: DirectiveNode): boolean =>
  node.name.value === deferDirective.name || node.name.value === 'stream';

/** The `@defer` and `@stream` directives a document holds, in document order: none for most documents. Found once per document (useDocumentCache keeps them). */
export const incrementalDirectivesOf = memoize1((document: DocumentNode): readonly DirectiveNode[] => {
  const collected: DirectiveNode[] = [];
  visit(document, {
    Directive(node) {
      if (isIncrementalDirective(node)) collected.push(node);
    },
  });
  return collected;
});
