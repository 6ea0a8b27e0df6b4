import type { InputFieldMap, ObjectRef } from '@pothos/core';
import { upstreamBadResponse } from '../upstream/errors.js';
import { routeParamsOf } from '../upstream/route.js';
import { builder } from './builder.js';
import type { inputRules } from './input-rules.js';

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/**
 * One mutation as the contract defines it: one upstream write, one record back. Everything that
 * is not a name or a description is derived, the same way for every mutation:
 *
 * - the route's `:params` are the input fields of the same name (`/categories/:id` takes `input.id`);
 * - the body is every other input field the caller gave, under its snake_case name (`showAt` is
 *   sent as `show_at`); omitted fields are not sent, and `clientMutationId` stays ours;
 * - the payload holds the upstream's record under `payload.field`, typed by `payload.type`.
 */
export interface RestMutation {
  /** The mutation field's description. */
  description: string;
  input: {
    description: string;
    fields: (t: PothosSchemaTypes.InputFieldBuilder<Types, 'InputObject'>) => InputFieldMap;
    /** The contract's rules for the input, checked before anything goes upstream. */
    validate: ReturnType<typeof inputRules>;
  };
  upstream: { method: 'POST' | 'PATCH'; route: string };
  /**
   * The payload's one field: the record the upstream answered, of `type`. The wrapper knows the
   * record only as an object: Pothos types a resolver's result with a conditional type TypeScript
   * leaves unresolved for a type parameter, so a wrapper generic in the record's type would need
   * casts. That the object has the type's fields is the upstream's contract, checked field by field
   * as the answer is resolved (UPSTREAM_BAD_RESPONSE).
   */
  payload: { field: string; type: ObjectRef<Types, object>; description: string };
}

export function restMutation(name: string, { description, input, upstream, payload }: RestMutation): void {
  builder.relayMutationField(
    name,
    { description: input.description, inputFields: input.fields, validate: input.validate },
    {
      nullable: true,
      description,
      resolve: async (_root, args, { caller }, info) => {
        const { params, rest } = routeParamsOf(upstream.route, args.input);
        const write = { method: upstream.method, route: upstream.route, params, body: upstreamBody(rest) };
        const { result } = await caller.write(write, info.path.key.toString());
        return recordOf(result, params.id);
      },
    },
    {
      description: `The result of ${name}.`,
      // The payload's parent is the record itself; clientMutationId is the relay plugin's.
      outputFields: (t) => ({
        [payload.field]: t.field({ type: payload.type, description: payload.description, resolve: (record) => record }),
      }),
    },
  );
}

/** The upstream body: the fields the caller gave, under their snake_case names; `clientMutationId` is ours. */
function upstreamBody(fields: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(fields)) {
    if (value === undefined || field === 'clientMutationId') continue;
    body[field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)] = value;
  }
  return body;
}

/**
 * The record in a create or update answer. Anything but an object is a broken upstream, and so is
 * an update answered with another record than the one the route named: passing it on would show
 * the caller a record it did not ask for.
 */
function recordOf(result: unknown, requestedId: string | undefined): object {
  if (typeof result !== 'object' || result === null || Array.isArray(result)) {
    throw upstreamBadResponse('the result is not a record');
  }
  const id = 'id' in result ? result.id : undefined;
  if (requestedId !== undefined && (typeof id === 'string' || typeof id === 'number') && String(id) !== requestedId) {
    throw upstreamBadResponse('the record’s id is not the one requested');
  }
  return result;
}
