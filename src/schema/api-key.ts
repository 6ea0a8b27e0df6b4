import { createContextCache } from '@pothos/core';
import DataLoader from 'dataloader';
import { GraphQLError } from 'graphql';
import { z } from 'zod';
import type { GatewayContext } from '../context.js';
import { badUserInput, ErrorCode } from '../errors.js';
import type { UpstreamCallEstimate } from '../upstream/budget.js';
import { upstreamBadResponse } from '../upstream/errors.js';
import { nextCursorFromLinks } from '../upstream/links.js';
import {
  decodeCursor,
  type FetchPage,
  forwardConnection,
  mostUpstreamPages,
  type ResumePoint,
  streamedConnection,
  UPSTREAM_MAX_PAGE,
  upstreamPagesFor,
  walkOf,
} from '../upstream/paging.js';
import type { ApiKeyRecord } from '../upstream/records.js';
import { AuditedRecord } from './audited-record.js';
import { builder } from './builder.js';
import { streamsChild } from './incremental-delivery.js';

const ApiKey = builder.objectRef<ApiKeyRecord>('ApiKey').implement({
  description: 'A key that gives programs access to the video library.',
  interfaces: [AuditedRecord],
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Name of the key.' }),
    type: t.exposeString('type', {
      description: 'Kind of key. "api" is the one value seen so far; the set of values is open, so this is a String rather than an enum.',
    }),
    permissions: t.exposeStringList('permissions', {
      description: 'Restrictions of the key: empty for a read-write key, ["fetch"] for a read-only key.',
    }),
  }),
});

const ApiKeyConnection = builder.connectionObject(
  { type: ApiKey, name: 'ApiKeyConnection', description: 'A page of API keys (Relay Cursor Connections, forward only).' },
  { name: 'ApiKeyEdge', description: 'An API key in a page, with its cursor.' },
);

/** Largest `first` one field may ask for (four upstream pages of 25). */
export const MAX_FIRST = 100;
const DEFAULT_FIRST = 25;
const FIRST_RANGE = `must be between 0 and ${MAX_FIRST}`;
const STREAMED_LISTS = ['edges', 'nodes'];

builder.queryField('apiKeys', (t) =>
  t.field({
    type: ApiKeyConnection,
    nullable: true,
    description:
      "API keys, oldest first. Pages forward only: pass the previous page's `pageInfo.endCursor` as `after`. " +
      `A \`first\` above the upstream's page size of 25 is served by chaining upstream pages (GET /api_keys).`,
    args: {
      first: t.arg.int({
        defaultValue: DEFAULT_FIRST,
        description: `How many keys to return, 0 to ${MAX_FIRST}.`,
        validate: z.number().min(0, FIRST_RANGE).max(MAX_FIRST, FIRST_RANGE),
      }),
      after: t.arg.string({ description: 'Return the keys that follow the edge with this cursor.' }),
    },
    extensions: {
      // Read before validation, from the arguments as GraphQL coerced them; `first: null` means the default, as in the resolver.
      upstreamCalls: (({ first, after }) =>
        upstreamPagesFor(
          typeof first === 'number' ? first : DEFAULT_FIRST,
          typeof after === 'string' ? after : null,
          MAX_FIRST,
        )) satisfies UpstreamCallEstimate,
      // What a variable's arguments can make it cost at most (schema:cost).
      mostUpstreamCalls: mostUpstreamPages(MAX_FIRST),
    },
    resolve: async (_root, { first, after }, { caller, request }, info) => {
      const resume: ResumePoint | null = after == null ? null : decodeCursor(after);
      // Under `edges @stream` or `nodes @stream`, each upstream page goes to the client as it arrives.
      // A root field: its path is its response key.
      const pages = apiKeyPages(caller, info.path.key.toString());
      if (streamsChild(info, STREAMED_LISTS)) {
        return streamedConnection<ApiKeyRecord>(pages, first ?? DEFAULT_FIRST, resume, request.signal);
      }
      return forwardConnection<ApiKeyRecord>(pages, first ?? DEFAULT_FIRST, resume);
    },
  }),
);

/** One page of `GET /api_keys` from `cursor`, for the list field and the entity walk alike, read for the field at `path`. */
const apiKeyPages =
  (caller: GatewayContext['caller'], path: string): FetchPage<ApiKeyRecord> =>
  async (cursor, limit) => {
    const read = { method: 'GET' as const, route: '/api_keys', query: { limit, cursor: cursor ?? undefined } };
    const { result, links } = await caller.read(read, path);
    const next = nextCursorFromLinks(links);
    if (!Array.isArray(result)) throw upstreamBadResponse('the list result is not an array');
    if (next === undefined) throw upstreamBadResponse('links.next holds no readable cursor');
    return { items: result as ApiKeyRecord[], next };
  };

/**
 * ApiKey is a Federation entity keyed by `id`. The contract has no read by id, so the ids a
 * router asks for in one request are found together: one walk of `GET /api_keys`, page by page,
 * that stops as soon as every id is found. Each page is an upstream call of the request, counted
 * against MAX_UPSTREAM_CALLS and REQUEST_DEADLINE_MS like any other; an id the walk does not find
 * is `null` with a NOT_FOUND error at its place in `_entities`. The token and the representations'
 * `__typename` are checked for `_entities` as a whole (src/schema/entities.ts).
 */
builder.asEntity(ApiKey, {
  key: builder.selection<{ id: string }>('id'),
  // Async, so that a refusal is the error of this representation, at its place in `_entities`.
  resolveReference: async ({ id }: { id: unknown }, context: GatewayContext) => {
    // The router's mistake, not the upstream's: a representation without its key.
    if (typeof id !== 'string' || id === '') throw badUserInput('The representation needs the key of ApiKey: "id", a non-empty string.');
    return apiKeysById(context).load(id);
  },
});

/** One loader per request (Pothos' per-context cache), so every representation of the request shares the walk. */
const apiKeysById = createContextCache(
  ({ caller }: GatewayContext) => new DataLoader<string, ApiKeyRecord>((ids) => walkForApiKeys(caller, ids)),
);

async function walkForApiKeys(caller: GatewayContext['caller'], ids: readonly string[]): Promise<Array<ApiKeyRecord | Error>> {
  const wanted = new Set(ids);
  const found = new Map<string, ApiKeyRecord>();
  const page = walkOf(apiKeyPages(caller, '_entities'));
  let cursor: string | null = null;
  do {
    // The upstream's largest page: fewest calls for the walk.
    const { items, next } = await page(cursor, UPSTREAM_MAX_PAGE);
    for (const record of items) if (wanted.has(record.id)) found.set(record.id, record);
    cursor = next;
  } while (cursor !== null && found.size < wanted.size);
  return ids.map((id) => found.get(id) ?? new GraphQLError('No API key has this id.', { extensions: { code: ErrorCode.NOT_FOUND } }));
}
