// Endpoint handlers of the sandbox upstream. Transport concerns (auth, body
// reading, envelopes, latency) live in server.ts; handlers only see a context.

import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import {
  type AuditRecord as Audit,
  HOTSPOT_ACTIONS,
  HOTSPOT_OPACITIES,
  HOTSPOT_TARGETS,
  IDENTITY_PROVIDER_COMPANIES,
  IDENTITY_PROVIDER_TYPES,
  SERVICE_PROVIDERS,
  USER_ROLES,
} from '../upstream/records.js';
import type { Store } from './data.js';
import { type ApiError, anyText, type Body, number, oneOf, text, timecode, validate } from './validate.js';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly errors: ApiError[],
    readonly headers: Record<string, string> = {},
  ) {
    super(errors[0]?.message ?? `HTTP ${status}`);
  }
}

interface RequestContext {
  store: Store;
  params: Record<string, string>;
  query: URLSearchParams;
  /** Host header of the request, used to build absolute paging links. */
  host: string;
  callerId: string;
  /** Parses the request body; throws a 400 HttpError unless it is a JSON object. */
  body(): Record<string, unknown>;
}

interface Reply {
  result: unknown;
  links?: Record<string, string>;
}

type Handler = (ctx: RequestContext) => Reply;

interface Route {
  /** Literal segments, or ":name" for a path parameter. */
  pattern: string[];
  handlers: Partial<Record<string, Handler>>;
}

const notFound = (message: string): HttpError => new HttpError(404, [{ code: 'not_found', message }]);

function assertValid(errors: ApiError[]): void {
  if (errors.length > 0) throw new HttpError(422, errors);
}

// --- API keys -------------------------------------------------------------

const MAX_LIMIT = 25;

function parseLimit(raw: string | null): number {
  if (raw === null) return MAX_LIMIT;
  const limit = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (limit >= 1 && limit <= MAX_LIMIT) return limit;
  throw new HttpError(422, [{ code: 'invalid_parameter', field: 'limit', message: 'limit must be an integer from 1 to 25' }]);
}

// Cursors are opaque to clients: base64url of {"offset":n}.
export const encodeCursor = (offset: number): string => Buffer.from(JSON.stringify({ offset })).toString('base64url');

function decodeCursor(raw: string | null): number {
  if (raw === null) return 0;
  let offset: unknown;
  // Buffer.from silently skips invalid characters, so check the alphabet first.
  if (/^[A-Za-z0-9_-]+$/.test(raw)) {
    try {
      offset = (JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as { offset?: unknown })?.offset;
    } catch {
      // falls through to the error below
    }
  }
  if (typeof offset === 'number' && Number.isSafeInteger(offset) && offset >= 0) return offset;
  throw new HttpError(400, [{ code: 'invalid_cursor', field: 'cursor', message: 'cursor is not a valid paging cursor' }]);
}

const listApiKeys: Handler = ({ store, query, host }) => {
  const limit = parseLimit(query.get('limit'));
  const offset = decodeCursor(query.get('cursor'));
  const page = store.apiKeys.slice(offset, offset + limit);
  const next = offset + limit;
  if (next >= store.apiKeys.length) return { result: page };
  const url = `http://${host}/v2/api_keys?limit=${limit}&cursor=${encodeCursor(next)}`;
  return { result: page, links: { next: url } };
};

// --- Shared create/update logic -------------------------------------------

const newId = (prefix: string): string => `${prefix}_${randomBytes(8).toString('hex')}`;

function create<T extends Audit>(records: Map<string, T>, prefix: string, schema: Body, { body, callerId }: RequestContext): Reply {
  const fields = body();
  assertValid(validate(fields, schema));
  const now = new Date().toISOString();
  // Field order mirrors the schema so responses read naturally.
  const record = {
    id: newId(prefix),
    ...Object.fromEntries(Object.keys(schema.shape).map((key) => [key, fields[key]])),
    created_by: callerId,
    created_time: now,
    updated_by: callerId,
    updated_time: now,
  } as unknown as T;
  records.set(record.id, record);
  return { result: record };
}

function update<T extends Audit>(record: T | undefined, label: string, schema: Body, { params, body, callerId }: RequestContext): Reply {
  if (!record) throw notFound(`${label} ${params.id} not found`);
  const fields = body();
  assertValid(validate(fields, schema));
  // An empty PATCH is a no-op, so the audit fields stay as they were.
  if (Object.keys(fields).length > 0) {
    Object.assign(record, fields, { updated_by: callerId, updated_time: new Date().toISOString() });
  }
  return { result: record };
}

// --- Schemas --------------------------------------------------------------
// Create endpoints require every field; update endpoints take any of them (.partial()).

const name = text(1, 40);

const hotspotSchema = z
  .strictObject({
    name: text(0, 100),
    show_at: timecode,
    hide_at: timecode,
    x: number,
    y: number,
    action: oneOf(HOTSPOT_ACTIONS),
    link: text(0, 100),
    target: oneOf(HOTSPOT_TARGETS),
    opacity: oneOf(HOTSPOT_OPACITIES),
  })
  .partial();

const idpSchema = z.strictObject({
  name,
  company: oneOf(IDENTITY_PROVIDER_COMPANIES),
  type: oneOf(IDENTITY_PROVIDER_TYPES),
  certificate: anyText,
  entity_id: anyText,
  signin_url: anyText,
});

const categorySchema = z.strictObject({ name, value: text(1, 40) }).partial();

// email is part of the user record but deliberately absent: it is read-only.
const userSchema = z.strictObject({ name, role: oneOf(USER_ROLES) }).partial();

const serviceSchema = z.strictObject({
  name,
  provider: oneOf(SERVICE_PROVIDERS),
});

const folderSchema = z.strictObject({ name });

// --- Routes ---------------------------------------------------------------

const updateHotspot: Handler = ({ store, params, body }) => {
  const { videoId = '', hotspotId = '' } = params;
  const hotspots = store.videos.get(videoId);
  if (!hotspots) throw notFound(`Video ${videoId} not found`);
  const hotspot = hotspots.get(hotspotId);
  if (!hotspot) throw notFound(`Hotspot ${hotspotId} not found on video ${videoId}`);
  const fields = body();
  assertValid(validate(fields, hotspotSchema));
  Object.assign(hotspot, fields);
  return { result: hotspot };
};

const routes: Route[] = [
  { pattern: ['api_keys'], handlers: { GET: listApiKeys } },
  { pattern: ['videos', ':videoId', 'hotspots', ':hotspotId'], handlers: { PATCH: updateHotspot } },
  { pattern: ['idps'], handlers: { POST: (c) => create(c.store.idps, 'idp', idpSchema, c) } },
  {
    pattern: ['categories', ':id'],
    handlers: {
      PATCH: (c) => update(c.store.categories.get(c.params.id ?? ''), 'Category', categorySchema, c),
    },
  },
  {
    pattern: ['users', ':id'],
    handlers: { PATCH: (c) => update(c.store.users.get(c.params.id ?? ''), 'User', userSchema, c) },
  },
  { pattern: ['services'], handlers: { POST: (c) => create(c.store.services, 'svc', serviceSchema, c) } },
  { pattern: ['folders'], handlers: { POST: (c) => create(c.store.folders, 'fld', folderSchema, c) } },
];

export interface RouteMatch {
  handlers: Partial<Record<string, Handler>>;
  params: Record<string, string>;
}

/** Matches a raw (still percent-encoded) path such as "/v2/users/usr_admin". */
export function matchRoute(path: string): RouteMatch | null {
  let segments: string[];
  try {
    segments = path.split('/').map(decodeURIComponent);
  } catch {
    return null; // malformed percent-encoding names no resource
  }
  const [root, version, ...rest] = segments;
  if (root !== '' || version !== 'v2') return null;
  for (const { pattern, handlers } of routes) {
    if (pattern.length !== rest.length) continue;
    const params: Record<string, string> = {};
    const matches = pattern.every((part, i) => {
      const segment = rest[i] ?? '';
      if (!part.startsWith(':')) return part === segment;
      params[part.slice(1)] = segment;
      return segment !== '';
    });
    if (matches) return { handlers, params };
  }
  return null;
}
