/**
 * The upstream body of a mutation: exactly the fields the caller gave, under their upstream
 * (snake_case) names. Enum values are already in upstream form (GraphQL enums map them).
 */
export function upstreamBody(input: Record<string, unknown>, names: Record<string, string>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [field, upstreamName] of Object.entries(names)) {
    if (input[field] !== undefined) body[upstreamName] = input[field];
  }
  return body;
}
