import { USER_ROLES, type UserRecord } from '../upstream/records.js';
import { AuditedRecord } from './audited-record.js';
import { builder, referenceEntity } from './builder.js';
import { inputRules, rules } from './input-rules.js';
import { restMutation } from './rest-mutation.js';
import { upstreamEnum } from './upstream-enum.js';

const UserRole = upstreamEnum('UserRole', 'What a user may do in the video library.', USER_ROLES, {
  VIEWER: { value: 'viewer', description: 'Watches videos.' },
  UPLOADER: { value: 'uploader', description: 'Watches and uploads videos.' },
  ADMIN: { value: 'admin', description: 'Administers the library.' },
  OWNER: { value: 'owner', description: 'Owns the account.' },
});

const User = builder.objectRef<UserRecord>('User').implement({
  description: 'A person with access to the video library.',
  interfaces: [AuditedRecord],
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Full name, 1 to 40 characters.' }),
    email: t.exposeString('email', { description: 'E-mail address. Read only: updateUser cannot change it.' }),
    role: t.field({ type: UserRole, description: "The user's role.", resolve: (u) => u.role }),
  }),
});

restMutation('updateUser', {
  description: 'Changes a user (PATCH /users/{id}) and returns it in full.',
  input: {
    description: 'Fields of a user to change; omitted fields keep their value. The e-mail address cannot be changed.',
    fields: (t) => ({
      id: t.id({ required: true, description: 'Id of the user.' }),
      name: t.string({ description: 'New full name, 1 to 40 characters.' }),
      role: t.field({ type: UserRole, description: 'New role.' }),
    }),
    validate: inputRules({ id: rules.id, name: rules.name.optional() }, { changes: ['name', 'role'] }),
  },
  upstream: { method: 'PATCH', route: '/users/:id' },
  payload: { field: 'user', type: User, description: 'The user after the change.' },
});

// A key other subgraphs can use; the contract has no read of one User by id.
referenceEntity(User);
