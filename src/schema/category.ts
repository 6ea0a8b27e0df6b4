import { type CategoryRecord, recordOf } from '../upstream/records.js';
import { AuditedRecord } from './audited-record.js';
import { builder } from './builder.js';
import { inputRules, rules } from './input-rules.js';
import { upstreamBody } from './upstream-body.js';

const Category = builder.objectRef<CategoryRecord>('Category').implement({
  description: 'A category videos can be filed under.',
  interfaces: [AuditedRecord],
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Name, 1 to 40 characters.' }),
    value: t.exposeString('value', { description: 'Value, 1 to 40 characters.' }),
  }),
});

builder.relayMutationField(
  'updateCategory',
  {
    description: 'Fields of a category to change; omitted fields keep their value.',
    inputFields: (t) => ({
      id: t.id({ required: true, description: 'Id of the category.' }),
      name: t.string({ description: 'New name, 1 to 40 characters.' }),
      value: t.string({ description: 'New value, 1 to 40 characters.' }),
    }),
    validate: inputRules(
      { id: rules.id, name: rules.name.optional(), value: rules.categoryValue.optional() },
      { changes: ['name', 'value'] },
    ),
  },
  {
    nullable: true,
    description: 'Changes a category (PATCH /categories/{id}) and returns it in full.',
    resolve: async (_root, { input }, { caller }) => {
      const { result } = await caller.write({
        method: 'PATCH',
        route: '/categories/:id',
        params: { id: String(input.id) },
        body: upstreamBody(input, { name: 'name', value: 'value' }),
      });
      return { category: recordOf<CategoryRecord>(result) };
    },
  },
  {
    description: 'The result of updateCategory.',
    outputFields: (t) => ({
      category: t.field({ type: Category, description: 'The category after the change.', resolve: (p) => p.category }),
    }),
  },
);
