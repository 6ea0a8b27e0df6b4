import { upstreamBadResponse } from './errors.js';

/**
 * The records as the upstream REST API sends them (contract section 2), in its snake_case. The
 * schema maps them to the graph; the sandbox stores and serves them.
 */

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
  action: string;
  link: string;
  target: string;
  opacity: string;
}

export interface IdentityProviderRecord extends AuditRecord {
  name: string;
  company: string;
  type: string;
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
  role: string;
}

export interface ServiceRecord extends AuditRecord {
  name: string;
  provider: string;
}

export interface FolderRecord extends AuditRecord {
  name: string;
}

/** The record in a create or update answer; anything but an object is a broken upstream. */
export function recordOf<T>(result: unknown): T {
  if (typeof result !== 'object' || result === null || Array.isArray(result)) {
    throw upstreamBadResponse('the result is not a record');
  }
  return result as T;
}
