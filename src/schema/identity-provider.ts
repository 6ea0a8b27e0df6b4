import { IDENTITY_PROVIDER_COMPANIES, IDENTITY_PROVIDER_TYPES, type IdentityProviderRecord } from '../upstream/records.js';
import { AuditedRecord } from './audited-record.js';
import { builder, referenceEntity } from './builder.js';
import { inputRules, rules } from './input-rules.js';
import { restMutation } from './rest-mutation.js';
import { upstreamEnum } from './upstream-enum.js';

const IdentityProviderCompany = upstreamEnum('IdentityProviderCompany', 'Vendor of an identity provider.', IDENTITY_PROVIDER_COMPANIES, {
  GOOGLE: { value: 'google', description: 'Google Workspace.' },
  OKTA: { value: 'okta', description: 'Okta.' },
});

const IdentityProviderType = upstreamEnum(
  'IdentityProviderType',
  'Single sign-on protocol of an identity provider.',
  IDENTITY_PROVIDER_TYPES,
  {
    SAML2: { value: 'saml2', description: 'SAML 2.0.' },
  },
);

const IdentityProvider = builder.objectRef<IdentityProviderRecord>('IdentityProvider').implement({
  description: 'An identity provider through which users sign in with single sign-on.',
  interfaces: [AuditedRecord],
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Name, 1 to 40 characters.' }),
    company: t.field({ type: IdentityProviderCompany, description: 'Vendor of the provider.', resolve: (p) => p.company }),
    type: t.field({ type: IdentityProviderType, description: 'Sign-on protocol.', resolve: (p) => p.type }),
    certificate: t.exposeString('certificate', {
      description: 'The public certificate supplied by the identity provider (PEM), as given, line breaks included.',
    }),
    entityId: t.string({ description: 'The entity ID the application uses.', resolve: (p) => p.entity_id }),
    signinUrl: t.string({
      description: 'URL to which the identity provider expects SAML2 requests to be POSTed.',
      resolve: (p) => p.signin_url,
    }),
  }),
});

restMutation('createIdentityProvider', {
  description: 'Creates an identity provider (POST /idps).',
  input: {
    description: 'A new identity provider.',
    fields: (t) => ({
      name: t.string({ required: true, description: 'Name, 1 to 40 characters.' }),
      company: t.field({ type: IdentityProviderCompany, required: true, description: 'Vendor of the provider.' }),
      type: t.field({ type: IdentityProviderType, required: true, description: 'Sign-on protocol.' }),
      certificate: t.string({ required: true, description: "The provider's public X.509 certificate in PEM form; sent as given." }),
      entityId: t.string({ required: true, description: 'The entity ID the application uses.' }),
      signinUrl: t.string({ required: true, description: 'http(s) URL to which SAML2 requests are POSTed.' }),
    }),
    validate: inputRules({ name: rules.name, certificate: rules.certificate, signinUrl: rules.httpUrl }),
  },
  upstream: { method: 'POST', route: '/idps' },
  payload: { field: 'identityProvider', type: IdentityProvider, description: 'The new identity provider.' },
});

// A key other subgraphs can use; the contract has no read of one IdentityProvider by id.
referenceEntity(IdentityProvider);
