import { type GraphQLSchema, isScalarType, isUnionType, valueFromASTUntyped } from 'graphql';
import type { GatewayContext } from '../context.js';
import { badUserInput, unauthenticated } from '../errors.js';
import type { RepresentationCount } from '../upstream/budget.js';

/**
 * `_entities` as this subgraph answers it, around the resolver @apollo/subgraph gives it (through
 * Pothos' federation plugin), whose mistakes were the caller's to pay for as a masked 500: one
 * unknown `__typename` threw a plain Error for the whole list, nulling the valid items beside it.
 *
 * - Without a bearer token the field is answered UNAUTHENTICATED once, before any representation
 *   is looked at: one error however many were sent, and nothing goes upstream.
 * - Each representation is checked before its type resolves it: an object whose own `__typename`
 *   names an entity this subgraph resolves (a member of `_Entity`). Anything else (`Nope`,
 *   `__proto__`, `Query`, a type declared `resolvable: false`, no `__typename`) is BAD_USER_INPUT
 *   at its index, and the items beside it are still resolved. Each type checks its own key fields
 *   in its `resolveReference`.
 * - `extensions.representations` hands their count to useUpstreamBudget, which refuses more than
 *   the request's upstream calls can find before execution.
 */
export function checkedEntities(schema: GraphQLSchema): GraphQLSchema {
  const field = schema.getQueryType()?.getFields()._entities;
  const union = schema.getType('_Entity');
  if (!field?.resolve || !isUnionType(union)) return schema;
  const resolvable = new Set(union.getTypes().map((type) => type.name));
  const names = [...resolvable].join(', ');
  const resolveList = field.resolve;
  field.resolve = (source, args: { representations: unknown[] }, context: GatewayContext, info) => {
    if (context.caller.authorization === null) throw unauthenticated();
    return args.representations.map((representation) => {
      if (typeof representation !== 'object' || representation === null || Array.isArray(representation)) {
        return refused('The representation is not an object.');
      }
      const typename = Object.hasOwn(representation, '__typename') ? (representation as { __typename: unknown }).__typename : undefined;
      if (typeof typename !== 'string' || !resolvable.has(typename)) {
        return refused(`The representation's "__typename" must name an entity this subgraph resolves: ${names}.`);
      }
      // The library's own resolver, one item at a time: it calls the type's resolveReference and marks the result's type.
      return (resolveList(source, { representations: [representation] }, context, info) as unknown[])[0];
    });
  };
  const count: RepresentationCount = ({ representations }) => (Array.isArray(representations) ? representations.length : 0);
  field.extensions = { ...field.extensions, representations: count };
  return schema;
}

/** An item's error, at its own index (the path says which): the list's other items still resolve. */
const refused = (message: string): Promise<never> => Promise.reject(badUserInput(message));

/**
 * `_Any` reads an inline representation (`_entities(representations: [{ __typename: "ApiKey", id: "k1" }])`)
 * from its literal alone. graphql-jit hands a scalar's parseLiteral no variables, and for every such
 * document it compiled it printed "Scalar with variable inputs detected for parsing AST literals"
 * on stderr, outside the JSON logs, because graphql-js' default parseLiteral declares that it takes
 * them. A variable inside such a literal was never read (its key is then missing: BAD_USER_INPUT);
 * a router sends the representations as one variable, which is. `_Any` is @apollo/subgraph's one
 * instance, so this holds for every subgraph schema in the process.
 */
export function literalRepresentations(schema: GraphQLSchema): GraphQLSchema {
  const any = schema.getType('_Any');
  if (isScalarType(any)) any.parseLiteral = (node) => valueFromASTUntyped(node);
  return schema;
}
