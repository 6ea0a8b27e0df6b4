import type { CategoryRecord } from '../upstream/records.js';
import { AuditedRecord } from './audited-record.js';
import { builder, referenceEntity } from './builder.js';
import { inputRules, rules } from './input-rules.js';
import { restMutation } from './rest-mutation.js';

const Category = builder.objectRef<CategoryRecord>('Category').implement({
  description: 'A category videos can be filed under.',
  interfaces: [AuditedRecord],
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Name, 1 to 40 characters.' }),
    value: t.exposeString('value', { description: 'Value, 1 to 40 characters.' }),
  }),
});

restMutation('updateCategory', {
  description: 'Changes a category (PATCH /categories/{id}) and returns it in full.',
  input: {
    description: 'Fields of a category to change; omitted fields keep their value.',
    fields: (t) => ({
      id: t.id({ required: true, description: 'Id of the category.' }),
      name: t.string({ description: 'New name, 1 to 40 characters.' }),
      value: t.string({ description: 'New value, 1 to 40 characters.' }),
    }),
    validate: inputRules(
      { id: rules.id, name: rules.name.optional(), value: rules.categoryValue.optional() },
      { changes: ['name', 'value'] },
    ),
  },
  upstream: { method: 'PATCH', route: '/categories/:id' },
  payload: { field: 'category', type: Category, description: 'The category after the change.' },
});

// A key other subgraphs can use; the contract has no read of one Category by id.
referenceEntity(Category);
