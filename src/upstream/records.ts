/**
 * The records as the upstream REST API sends them (contract section 2), in its snake_case. The
 * schema maps them to the graph; the sandbox stores and serves them.
 */

/** The closed value sets of the contract; the schema's enums and the sandbox's checks are built from these. */
export const HOTSPOT_ACTIONS = ['link'] as const;
export const HOTSPOT_TARGETS = ['_blank', '_parent'] as const;
export const HOTSPOT_OPACITIES = ['invisible', 'translucent', 'opaque'] as const;
export const IDENTITY_PROVIDER_COMPANIES = ['google', 'okta'] as const;
export const IDENTITY_PROVIDER_TYPES = ['saml2'] as const;
export const USER_ROLES = ['viewer', 'uploader', 'admin', 'owner'] as const;
export const SERVICE_PROVIDERS = ['campaign_monitor', 'mailchimp', 'tiktok', 'youtube'] as const;

/** Who created and last changed a record, as the upstream's audit fields carry it. */
export interface AuditRecord {
  id: string;
  created_by: string;
  created_time: string;
  updated_by: string;
  updated_time: string;
}

export interface ApiKeyRecord extends AuditRecord {
  name: string;
  type: string;
  permissions: string[];
}

/** The contract gives hotspots no audit fields. */
export interface HotspotRecord {
  id: string;
  name: string;
  show_at: string;
  hide_at: string;
  x: number;
  y: number;
  action: (typeof HOTSPOT_ACTIONS)[number];
  link: string;
  target: (typeof HOTSPOT_TARGETS)[number];
  opacity: (typeof HOTSPOT_OPACITIES)[number];
}

export interface IdentityProviderRecord extends AuditRecord {
  name: string;
  company: (typeof IDENTITY_PROVIDER_COMPANIES)[number];
  type: (typeof IDENTITY_PROVIDER_TYPES)[number];
  certificate: string;
  entity_id: string;
  signin_url: string;
}

export interface CategoryRecord extends AuditRecord {
  name: string;
  value: string;
}

export interface UserRecord extends AuditRecord {
  name: string;
  email: string;
  role: (typeof USER_ROLES)[number];
}

export interface ServiceRecord extends AuditRecord {
  name: string;
  provider: (typeof SERVICE_PROVIDERS)[number];
}

export interface FolderRecord extends AuditRecord {
  name: string;
}
