import SchemaBuilder from '@pothos/core';
import DirectivePlugin from '@pothos/plugin-directives';
import FederationPlugin from '@pothos/plugin-federation';
import RelayPlugin from '@pothos/plugin-relay';
import ValidationPlugin from '@pothos/plugin-validation';
import type { GraphQLError } from 'graphql';
import type { GatewayContext } from '../context.js';
import { badUserInput, type InputIssue } from '../errors.js';
import BearerPlugin from './bearer-plugin.js';
import { issuesOf } from './input-rules.js';

/**
 * The one schema builder. Fields inside types are non-null unless they say otherwise; root fields
 * opt into nullability one by one so a failing field never empties its siblings.
 */
export const builder = new SchemaBuilder<{
  Context: GatewayContext;
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: string; Output: string };
  };
}>({
  // Federation last, after the plugins that wrap resolvers, as its documentation asks.
  plugins: [BearerPlugin, RelayPlugin, ValidationPlugin, DirectivePlugin, FederationPlugin],
  defaultFieldNullability: false,
  validation: {
    validationError: (failure, args) => invalidInput(issuesOf(failure.issues), args),
  },
  relay: {
    clientMutationId: 'optional',
    nodeQueryOptions: false,
    nodesQueryOptions: false,
    nodesOnConnection: {
      description: 'The records of this page, for clients that need no cursors.',
    },
    cursorType: 'String',
    pageInfoTypeOptions: {
      description: 'Where a page sits in the whole list (Relay Cursor Connections).',
      // Other subgraphs of a supergraph define the same PageInfo; in subgraph mode it is @shareable.
      shareable: true,
    },
    hasNextPageFieldOptions: {
      description: 'True when records follow this page; ask for them with `after: endCursor`.',
    },
    hasPreviousPageFieldOptions: {
      description: 'True when the page was asked for with `after`, so records precede it. Paging is forward only.',
    },
    startCursorFieldOptions: { description: 'Cursor of the first edge of the page; null when the page is empty.' },
    endCursorFieldOptions: { description: 'Cursor of the last edge of the page; pass it as `after` to get the next page.' },
    cursorFieldOptions: { description: 'Opaque cursor of this edge: `after` with it resumes right after this record.' },
    nodeFieldOptions: { description: 'The record at this edge.' },
    edgesFieldOptions: { description: 'The records of this page with their cursors.' },
    pageInfoFieldOptions: { description: 'Paging information for this page.' },
    clientMutationIdInputOptions: { description: 'Any string; echoed unchanged in the payload so a client can match answers to requests.' },
    clientMutationIdFieldOptions: { description: 'The clientMutationId sent in the input, unchanged.' },
    mutationInputArgOptions: { description: 'The mutation input.' },
  },
});

/**
 * The error for arguments the validation plugin refused. One issue with an argument that is a single
 * value (`apiKeys(first: 101)`) is said in the message itself. Issues with an input object, such as a
 * mutation's `input`, are often several and name fields inside it, so the message points to them.
 */
function invalidInput(issues: InputIssue[], args: Record<string, unknown>): GraphQLError {
  const [issue, ...others] = issues;
  if (issue && others.length === 0 && Object.hasOwn(args, issue.path) && typeof args[issue.path] !== 'object') {
    return badUserInput(`"${issue.path}" ${issue.message}.`, issues);
  }
  return badUserInput('The input is invalid: see extensions.issues.', issues);
}

builder.queryType({ description: 'Reads from the Video Management Service.' });
builder.mutationType({ description: 'Changes to the Video Management Service. Each mutation sends exactly one upstream request.' });

/**
 * Makes `ref` a Federation entity keyed by `id` that this subgraph cannot fetch (`resolvable:
 * false`): the contract has no read by id for it, so other subgraphs may add fields to it and
 * reference it, but `_entities` never asks this one for it.
 */
export function referenceEntity(ref: Parameters<typeof builder.asEntity>[0]): void {
  builder.asEntity(ref, {
    key: builder.keyDirective(builder.selection<{ id: string }>('id'), false),
    resolveReference: () => null,
  });
}
