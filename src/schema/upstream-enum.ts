import { builder } from './builder.js';

/**
 * A GraphQL enum over one of the contract's closed value sets (src/upstream/records.ts): the graph
 * chooses the names and descriptions, the set decides the values, and every value of the set must
 * have exactly one name, or the schema is not built.
 */
export function upstreamEnum<
  const Set extends readonly string[],
  const Values extends Record<string, { value: Set[number]; description: string }>,
>(name: string, description: string, set: Set, values: Values) {
  const mapped = Object.values(values).map((entry) => entry.value);
  if (mapped.length !== set.length || !set.every((value) => mapped.includes(value))) {
    throw new Error(`${name} must name each of ${set.join(', ')} exactly once.`);
  }
  return builder.enumType(name, { description, values });
}
