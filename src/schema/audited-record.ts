import type { AuditRecord } from '../upstream/records.js';
import { builder } from './builder.js';
import './date-time.js';

/** A record with its audit fields also under the graph's names. */
export type Audited<R extends AuditRecord> = R & { createdBy: string; createdTime: string; updatedBy: string; updatedTime: string };

/**
 * Adds the graph's names of the audit fields to a record just read from the upstream. The fields
 * then expose plain properties, which graphql-jit reads inline; with a resolver per field it built
 * a resolve info and a path for each of the four fields of each record, and a page of 25 API keys
 * cost about 8% more CPU. Records reach the schema in two places (the API key pages and the
 * mutations' answers), and both call this.
 */
export function withAuditFields<R extends AuditRecord>(record: R): Audited<R> {
  // Not a record at all: left as it came, for the schema's checks to report as UPSTREAM_BAD_RESPONSE.
  if (typeof record !== 'object' || record === null) return record;
  return {
    ...record,
    createdBy: record.created_by,
    createdTime: record.created_time,
    updatedBy: record.updated_by,
    updatedTime: record.updated_time,
  };
}

/** The audit fields every audited type shares, defined once as an interface. */
export const AuditedRecord = builder.interfaceRef<Audited<AuditRecord>>('AuditedRecord').implement({
  description: "A record that carries the upstream's audit fields: who created and last updated it, and when.",
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Identifier of the record, as the upstream issued it.' }),
    createdBy: t.exposeString('createdBy', { description: 'Id of the user who created the record.' }),
    createdTime: t.expose('createdTime', { type: 'DateTime', description: 'When the record was created.' }),
    updatedBy: t.exposeString('updatedBy', { description: 'Id of the user who last updated the record.' }),
    updatedTime: t.expose('updatedTime', { type: 'DateTime', description: 'When the record was last updated.' }),
  }),
});
