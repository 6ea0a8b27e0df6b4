import { type FolderRecord, recordOf } from '../upstream/records.js';
import { AuditedRecord } from './audited-record.js';
import { builder } from './builder.js';
import { inputRules, rules } from './input-rules.js';
import { upstreamBody } from './upstream-body.js';

const Folder = builder.objectRef<FolderRecord>('Folder').implement({
  description: 'A folder that groups videos.',
  interfaces: [AuditedRecord],
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Name, 1 to 40 characters.' }),
  }),
});

builder.relayMutationField(
  'createFolder',
  {
    description: 'A new folder.',
    inputFields: (t) => ({
      name: t.string({ required: true, description: 'Name, 1 to 40 characters.' }),
    }),
    validate: inputRules({ name: rules.name }),
  },
  {
    nullable: true,
    description: 'Creates a folder (POST /folders).',
    resolve: async (_root, { input }, { caller }) => {
      const { result } = await caller.write({ method: 'POST', route: '/folders', body: upstreamBody(input, { name: 'name' }) });
      return { folder: recordOf<FolderRecord>(result) };
    },
  },
  {
    description: 'The result of createFolder.',
    outputFields: (t) => ({
      folder: t.field({ type: Folder, description: 'The new folder.', resolve: (p) => p.folder }),
    }),
  },
);
