import { SERVICE_PROVIDERS, type ServiceRecord } from '../upstream/records.js';
import { AuditedRecord } from './audited-record.js';
import { builder, referenceEntity } from './builder.js';
import { inputRules, rules } from './input-rules.js';
import { restMutation } from './rest-mutation.js';
import { upstreamEnum } from './upstream-enum.js';

const ServiceProvider = upstreamEnum('ServiceProvider', 'Third party behind a connected service.', SERVICE_PROVIDERS, {
  CAMPAIGN_MONITOR: { value: 'campaign_monitor', description: 'Campaign Monitor.' },
  MAILCHIMP: { value: 'mailchimp', description: 'Mailchimp.' },
  TIKTOK: { value: 'tiktok', description: 'TikTok.' },
  YOUTUBE: { value: 'youtube', description: 'YouTube.' },
});

const Service = builder.objectRef<ServiceRecord>('Service').implement({
  description: 'A third-party service connected to the video library.',
  interfaces: [AuditedRecord],
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Name, 1 to 40 characters.' }),
    provider: t.field({ type: ServiceProvider, description: 'The third party.', resolve: (s) => s.provider }),
  }),
});

restMutation('createService', {
  description: 'Connects a third-party service (POST /services).',
  input: {
    description: 'A new connected service.',
    fields: (t) => ({
      name: t.string({ required: true, description: 'Name, 1 to 40 characters.' }),
      provider: t.field({ type: ServiceProvider, required: true, description: 'The third party.' }),
    }),
    validate: inputRules({ name: rules.name }),
  },
  upstream: { method: 'POST', route: '/services' },
  payload: { field: 'service', type: Service, description: 'The new service.' },
});

// A key other subgraphs can use; the contract has no read of one Service by id.
referenceEntity(Service);
