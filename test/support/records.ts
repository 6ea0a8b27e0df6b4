import { readFileSync } from 'node:fs';
import type {
  ApiKeyRecord,
  AuditRecord,
  CategoryRecord,
  FolderRecord,
  HotspotRecord,
  IdentityProviderRecord,
  ServiceRecord,
  UserRecord,
} from '../../src/upstream/records.js';
import { envelope } from './recording-upstream.js';

/**
 * Records as the upstream sends them (src/upstream/records.ts, so the compiler checks every field),
 * for fake upstreams to answer with. Each factory fills every field; a test gives only the fields
 * its point is about.
 */

/** Created and last changed by two users at two times, so that a mapping that mixes them up shows. */
export const AUDIT = {
  created_by: 'usr_1',
  created_time: '2025-01-01T00:00:00.000Z',
  updated_by: 'usr_2',
  updated_time: '2025-02-01T00:00:00.000Z',
} satisfies Omit<AuditRecord, 'id'>;

/** AUDIT as the graph shows it. */
export const AUDIT_FIELDS = {
  createdBy: 'usr_1',
  createdTime: '2025-01-01T00:00:00.000Z',
  updatedBy: 'usr_2',
  updatedTime: '2025-02-01T00:00:00.000Z',
};

/** A valid X.509 certificate in PEM, as identity providers carry one. */
export const CERTIFICATE = readFileSync(new URL('../fixtures/idp-certificate.pem', import.meta.url), 'utf8');

/** API key number `n`: id `k<n>`, name `Key <n>`; the even ones hold the `fetch` permission, as in the sandbox. */
export function apiKeyRecord(n = 1, fields: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return { id: `k${n}`, name: `Key ${n}`, type: 'api', permissions: n % 2 === 0 ? ['fetch'] : [], ...AUDIT, ...fields };
}

/** `count` API keys numbered from `from`, each with `fields` over its own. */
export function apiKeys(count: number, from = 1, fields: Partial<ApiKeyRecord> = {}): ApiKeyRecord[] {
  return Array.from({ length: count }, (_, i) => apiKeyRecord(from + i, fields));
}

/** The base URL of the real service in the links it writes: not the fake upstream's, whose address the gateway takes from UPSTREAM_URL. */
const SERVICE_URL = 'https://vms.example/v2';

/**
 * The upstream's answer with one page of API keys. With `next`, `links.next` points to the page
 * after it as the real service writes it: a URL of its list whose `cursor` parameter is `next`
 * (and `limit` this page's size), on `serviceUrl`.
 */
export function apiKeyPage(records: ApiKeyRecord[], next?: string | number | null, serviceUrl = SERVICE_URL) {
  if (next === undefined || next === null) return envelope(records);
  const link = new URL(`${serviceUrl}/api_keys`);
  link.searchParams.set('limit', String(records.length));
  link.searchParams.set('cursor', String(next));
  return envelope(records, { next: link.href });
}

/** A factory of one type of record: its defaults, with the fields a test gives over them. */
const factory =
  <R>(defaults: R) =>
  (fields: Partial<R> = {}): R => ({ ...defaults, ...fields });

export const categoryRecord = factory<CategoryRecord>({ id: 'cat_1', name: 'Category 1', value: 'category-1', ...AUDIT });

export const userRecord = factory<UserRecord>({ id: 'usr_1', name: 'User 1', email: 'user1@example.com', role: 'viewer', ...AUDIT });

export const folderRecord = factory<FolderRecord>({ id: 'fld_1', name: 'Folder 1', ...AUDIT });

export const serviceRecord = factory<ServiceRecord>({ id: 'svc_1', name: 'Service 1', provider: 'youtube', ...AUDIT });

export const identityProviderRecord = factory<IdentityProviderRecord>({
  id: 'idp_1',
  name: 'IdP 1',
  company: 'okta',
  type: 'saml2',
  certificate: CERTIFICATE,
  entity_id: 'urn:idp-1',
  signin_url: 'https://sso.example/saml',
  ...AUDIT,
});

/** The contract gives hotspots no audit fields. */
export const hotspotRecord = factory<HotspotRecord>({
  id: 'hs_1',
  name: 'Hotspot 1',
  show_at: '00:00:01',
  hide_at: '00:00:09',
  x: 10.5,
  y: 90,
  action: 'link',
  link: 'https://shop.example/a',
  target: '_blank',
  opacity: 'opaque',
});

/**
 * An upstream's list of `total` API keys (k1, k2, …), paged as the real service pages it: `limit`
 * records from the offset the `cursor` holds, with `links.next` to the page after them. A script
 * for a recording upstream, or a part of one.
 */
export function apiKeyList(total: number) {
  return ({ query }: { query: Record<string, string> }) => {
    const offset = Number(query.cursor ?? 0);
    const count = Math.max(0, Math.min(Number(query.limit), total - offset));
    return { body: apiKeyPage(apiKeys(count, offset + 1), offset + count < total ? offset + count : null) };
  };
}
