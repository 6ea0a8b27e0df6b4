import { createHash } from 'node:crypto';
import { type APQStore, useAPQ } from '@graphql-yoga/plugin-apq';
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { defaultSettings } from '../config/settings.js';

export interface AutomaticPersistedQueriesOptions {
  /** Heap the store may hold, its texts, hashes and entries counted as `apqEntryBytes` does, least recently used dropped first (APQ_STORE_BYTES). @default 8388608 */
  apqStoreBytes?: number;
}

/**
 * Heap the store holds per entry beyond its two strings: lru-cache's Map entry and its slots in
 * five arrays, which keep the room of the most entries ever held. Measured by registering 30,000
 * to 100,000 tiny texts through stores of 1 to 8 MiB: 120 to 160 bytes.
 */
const ENTRY_OVERHEAD_BYTES = 192;

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
 * The store is this process's memory, bounded by `apqStoreBytes` of heap as `apqEntryBytes` counts it,
 * least recently used dropped first: a stranger can fill it, which costs the others one more round
 * trip, never memory.
 */
export function useAutomaticPersistedQueries({
  apqStoreBytes = defaultSettings().apqStoreBytes,
}: AutomaticPersistedQueriesOptions = {}): Plugin {
  const documents = new LRUCache<string, string>({ maxSize: apqStoreBytes, sizeCalculation: (text, hash) => apqEntryBytes(hash, text) });
  const store: APQStore = {
    get: (hash) => documents.get(hash) ?? null,
    // Registered after validation instead, below.
    set: () => undefined,
  };
  const apq = useAPQ({ store });
  /** The hash and text a request in flight sent to register, until its validation says whether they are kept. */
  const registering = new WeakMap<object, { hash: string; text: string }>();
  return {
    onParams(payload) {
      const { params, context } = payload;
      const persisted = (params.extensions as { persistedQuery?: { sha256Hash?: unknown } } | undefined)?.persistedQuery;
      // Yoga's hook is async; most requests carry no persisted query and should not pay for a promise.
      if (persisted === undefined) return;
      const text = params.query;
      if (text != null && typeof text !== 'string') return;
      const checked = apq.onParams?.(payload);
      if (typeof text !== 'string' || typeof persisted?.sha256Hash !== 'string') return checked;
      const hash = persisted.sha256Hash;
      return Promise.resolve(checked).then(() => void registering.set(context, { hash, text }));
    },
    onValidate: ({ context }) => {
      const registration = registering.get(context);
      if (registration === undefined) return;
      registering.delete(context);
      return ({ valid }) => {
        // Hashed again rather than trusting that Yoga's plugin checked this very request (it skips a `version` other than 1).
        if (valid && sha256(registration.text) === registration.hash) documents.set(registration.hash, registration.text);
      };
    },
  };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * The heap one entry holds: its hash and its text as V8 strings, and the cache's own share. Yoga's
 * count, the text's UTF-8 bytes and the hash's 64, was about a third of it for small texts
 * (130,000 tiny registrations grew the heap by 26.5 MiB against a budget of 8).
 */
export function apqEntryBytes(hash: string, text: string): number {
  return stringBytes(hash) + stringBytes(text) + ENTRY_OVERHEAD_BYTES;
}

/**
 * A V8 string: a 16-byte header, then one byte a character, or two once any character is outside
 * Latin-1 (counted as two for any non-ASCII text: a little over, never under).
 */
function stringBytes(text: string): number {
  const width = Buffer.byteLength(text) === text.length ? 1 : 2;
  return 16 + Math.ceil((text.length * width) / 8) * 8;
}
