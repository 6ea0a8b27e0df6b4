import { GraphQLError, Kind } from 'graphql';
import { upstreamBadResponse } from '../upstream/errors.js';
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

/** Who created and last changed a record, as the upstream's audit fields carry it. */
export interface AuditRecord {
  id: string;
  created_by: string;
  created_time: string;
  updated_by: string;
  updated_time: string;
}

/** The audit fields every audited type shares, defined once as an interface. */
export const AuditedRecord = builder.interfaceRef<AuditRecord>('AuditedRecord').implement({
  description: 'A record that carries the upstream\'s audit fields: who created and last updated it, and when.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Identifier of the record, as the upstream issued it.' }),
    createdBy: t.string({ description: 'Id of the user who created the record.', resolve: (r) => r.created_by }),
    createdTime: t.field({ type: 'DateTime', description: 'When the record was created.', resolve: (r) => r.created_time }),
    updatedBy: t.string({ description: 'Id of the user who last updated the record.', resolve: (r) => r.updated_by }),
    updatedTime: t.field({ type: 'DateTime', description: 'When the record was last updated.', resolve: (r) => r.updated_time }),
  }),
});

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

/** The record in a create or update answer; anything but an object is a broken upstream. */
export function recordOf<T>(result: unknown): T {
  if (typeof result !== 'object' || result === null || Array.isArray(result)) {
    throw upstreamBadResponse('the result is not a record');
  }
  return result as T;
}
