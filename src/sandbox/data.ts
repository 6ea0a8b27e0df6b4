// Seed data of the sandbox upstream, in the upstream's own record shapes. createStore() builds a
// fresh store for every sandbox instance so that tests never share mutations.

import type {
  ApiKeyRecord as ApiKey,
  AuditRecord as Audit,
  CategoryRecord as Category,
  FolderRecord as Folder,
  HotspotRecord as Hotspot,
  IdentityProviderRecord as IdentityProvider,
  ServiceRecord as Service,
  UserRecord as User,
} from '../upstream/records.js';

export interface Store {
  apiKeys: ApiKey[];
  /** video id → hotspot id → hotspot */
  videos: Map<string, Map<string, Hotspot>>;
  idps: Map<string, IdentityProvider>;
  categories: Map<string, Category>;
  users: Map<string, User>;
  services: Map<string, Service>;
  folders: Map<string, Folder>;
}

export const OWNER_ID = 'usr_owner';
const SEED_TIME = '2025-01-01T00:00:00.000Z';

const pad3 = (n: number): string => String(n).padStart(3, '0');

/** Audit fields minus id; callers put id first so records read naturally. */
function seedAudit(time = SEED_TIME): Omit<Audit, 'id'> {
  return { created_by: OWNER_ID, created_time: time, updated_by: OWNER_ID, updated_time: time };
}

function byId<T extends { id: string }>(records: T[]): Map<string, T> {
  return new Map(records.map((r) => [r.id, r]));
}

function seedApiKeys(): ApiKey[] {
  const base = Date.parse(SEED_TIME);
  return Array.from({ length: 62 }, (_, i) => {
    const n = i + 1;
    const time = new Date(base + i * 60_000).toISOString();
    return {
      id: `ak_${pad3(n)}`,
      name: `API key ${n}`,
      type: 'api',
      permissions: n % 2 === 0 ? ['fetch'] : [],
      ...seedAudit(time),
    };
  });
}

function seedHotspots(): Map<string, Hotspot> {
  return byId(
    [1, 2, 3].map((n) => ({
      id: `hs_${pad3(n)}`,
      name: `Hotspot ${n}`,
      show_at: '00:00:05',
      hide_at: '00:00:15',
      x: 50,
      y: 50,
      action: 'link',
      link: `https://example.com/hotspot-${n}`,
      target: '_blank',
      opacity: 'translucent',
    })),
  );
}

function seedCategories(): Category[] {
  return [1, 2, 3, 4, 5].map((n) => ({
    id: `cat_${pad3(n)}`,
    name: `Category ${n}`,
    value: `category-${n}`,
    ...seedAudit(),
  }));
}

function seedUsers(): User[] {
  const people: Array<[role: User['role'], name: string]> = [
    ['owner', 'Olivia Owner'],
    ['admin', 'Adam Admin'],
    ['uploader', 'Uma Uploader'],
    ['viewer', 'Victor Viewer'],
  ];
  return people.map(([role, name]) => ({
    id: `usr_${role}`,
    name,
    email: `${role}@example.com`,
    role,
    ...seedAudit(),
  }));
}

export function createStore(): Store {
  return {
    apiKeys: seedApiKeys(),
    videos: new Map([['vid_001', seedHotspots()]]),
    idps: new Map(),
    categories: byId(seedCategories()),
    users: byId(seedUsers()),
    services: new Map(),
    folders: new Map(),
  };
}
