import type { FolderRecord } from '../upstream/records.js';
import { AuditedRecord } from './audited-record.js';
import { builder, referenceEntity } from './builder.js';
import { inputRules, rules } from './input-rules.js';
import { restMutation } from './rest-mutation.js';

const Folder = builder.objectRef<FolderRecord>('Folder').implement({
  description: 'A folder that groups videos.',
  interfaces: [AuditedRecord],
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Name, 1 to 40 characters.' }),
  }),
});

restMutation('createFolder', {
  description: 'Creates a folder (POST /folders).',
  input: {
    description: 'A new folder.',
    fields: (t) => ({
      name: t.string({ required: true, description: 'Name, 1 to 40 characters.' }),
    }),
    validate: inputRules({ name: rules.name }),
  },
  upstream: { method: 'POST', route: '/folders' },
  payload: { field: 'folder', type: Folder, description: 'The new folder.' },
});

// A key other subgraphs can use; the contract has no read of one Folder by id.
referenceEntity(Folder);
