import { createHash } from 'node:crypto';
import { type APQStore, useAPQ } from '@graphql-yoga/plugin-apq';
import type { Plugin } from 'graphql-yoga';
import { defaultSettings } from '../config/settings.js';
import { OperationSlot, recordOf } from '../operation-record.js';
import { InProcessPersistedQueries, type PersistedQueryStore } from '../state/persisted-queries.js';

export interface AutomaticPersistedQueriesOptions {
  /** Where registered texts are kept: this process or Redis (src/state/). @default this process's, at most APQ_STORE_BYTES (8 MiB) */
  store?: PersistedQueryStore;
}

/**
 * Automatic persisted queries, as Apollo's PersistedQueryLink and urql's persistedExchange speak
 * them (Yoga's plugin): a request may send `extensions.persistedQuery.sha256Hash` alone; an unknown
 * hash is answered `PERSISTED_QUERY_NOT_FOUND` (HTTP 404, which both clients read), and the client
 * sends the text with the hash once, which is checked against the text (`PERSISTED_QUERY_MISMATCH`
 * otherwise). Registered texts are parsed and validated like any other.
 *
 * A text is registered only once it has passed validation, limits included: a text that does not
 * parse or validate runs (and fails) once, and is never kept. Yoga's plugin registers in onParams,
 * before parsing, so eight junk texts of 1 MiB had evicted every real one; here its store ignores
 * `set`, and the registration waits for this request's validation. A `query` that is not a string
 * is left to Yoga, which refuses it 400 `BAD_REQUEST` (the store measured it and failed with a 500).
 *
 * The store is bounded in bytes, least recently used dropped first, in this process or in Redis
 * (src/state/persisted-queries.ts): a stranger can fill it, which costs the others one more round
 * trip, never memory.
 */
export function useAutomaticPersistedQueries({
  store = new InProcessPersistedQueries(defaultSettings().apqStoreBytes),
}: AutomaticPersistedQueriesOptions = {}): Plugin {
  const yogaStore: APQStore = {
    get: async (hash) => (await store.get(hash)) ?? null,
    // Registered after validation instead, below.
    set: () => undefined,
  };
  const apq = useAPQ({ store: yogaStore });
  /** A text an operation registers under its hash once its validation says it is valid. */
  const registrations = new OperationSlot<{ hash: string; text: string }>();
  return {
    onParams(payload) {
      const { params, context } = payload;
      const persisted = (params.extensions as { persistedQuery?: { sha256Hash?: unknown } } | undefined)?.persistedQuery;
      // Yoga's hook is async; most requests carry no persisted query and should not pay for a promise.
      if (persisted === undefined) return;
      const text = params.query;
      if (text != null && typeof text !== 'string') return;
      const checked = apq.onParams?.(payload);
      const record = recordOf(context);
      if (typeof text !== 'string' || typeof persisted?.sha256Hash !== 'string') return checked;
      const hash = persisted.sha256Hash;
      // Kept until its validation says whether the text is kept.
      return Promise.resolve(checked).then(() => registrations.set(record, { hash, text }));
    },
    onValidate: ({ context }) => {
      const registration = registrations.take(recordOf(context));
      if (registration === undefined) return;
      return ({ valid }) => {
        // Hashed again rather than trusting that Yoga's plugin checked this very request (it skips a `version` other than 1).
        // Not awaited: the answer never waits for the store, which reports its own failures.
        if (valid && sha256(registration.text) === registration.hash) void store.set(registration.hash, registration.text);
      };
    },
  };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
