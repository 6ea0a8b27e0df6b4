import { GraphQLError, Kind } from 'graphql';
import { builder } from './builder.js';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

function dateTime(value: unknown): string {
  if (typeof value === 'string' && ISO_UTC.test(value) && !Number.isNaN(Date.parse(value))) return value;
  throw new GraphQLError('DateTime must be an ISO 8601 UTC timestamp such as 2025-01-01T00:00:00.000Z.');
}

builder.scalarType('DateTime', {
  description: 'An ISO 8601 timestamp in UTC with milliseconds, exactly as the upstream sends it, e.g. `2025-01-01T00:00:00.000Z`.',
  specifiedByURL: 'https://datatracker.ietf.org/doc/html/rfc3339',
  serialize: dateTime,
  parseValue: dateTime,
  parseLiteral: (ast) => dateTime(ast.kind === Kind.STRING ? ast.value : undefined),
});
