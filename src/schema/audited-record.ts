import type { AuditRecord } from '../upstream/records.js';
import { builder } from './builder.js';
import './date-time.js';

/** The audit fields every audited type shares, defined once as an interface. */
export const AuditedRecord = builder.interfaceRef<AuditRecord>('AuditedRecord').implement({
  description: "A record that carries the upstream's audit fields: who created and last updated it, and when.",
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Identifier of the record, as the upstream issued it.' }),
    createdBy: t.string({ description: 'Id of the user who created the record.', resolve: (r) => r.created_by }),
    createdTime: t.field({ type: 'DateTime', description: 'When the record was created.', resolve: (r) => r.created_time }),
    updatedBy: t.string({ description: 'Id of the user who last updated the record.', resolve: (r) => r.updated_by }),
    updatedTime: t.field({ type: 'DateTime', description: 'When the record was last updated.', resolve: (r) => r.updated_time }),
  }),
});
