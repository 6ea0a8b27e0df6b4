import { type APQStore, useAPQ } from '@graphql-yoga/plugin-apq';
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { defaultSettings } from '../config/settings.js';

export interface AutomaticPersistedQueriesOptions {
  /** Bytes of document text the store keeps, least recently used dropped first (APQ_STORE_BYTES). @default 8388608 */
  apqStoreBytes?: number;
}

/**
 * Automatic persisted queries, as Apollo's PersistedQueryLink and urql's persistedExchange speak
 * them (Yoga's plugin): a request may send `extensions.persistedQuery.sha256Hash` alone; an unknown
 * hash is answered `PERSISTED_QUERY_NOT_FOUND` (HTTP 404, which both clients read), and the client
 * sends the text with the hash once, which registers it after the hash is checked against the text
 * (`PERSISTED_QUERY_MISMATCH` otherwise). Registered texts are parsed and validated like any other.
 *
 * The store is this process's memory, bounded by `apqStoreBytes` of document text, least recently
 * used dropped first: a stranger can fill it, which costs the others one more round trip, never memory.
 */
export function useAutomaticPersistedQueries({
  apqStoreBytes = defaultSettings().apqStoreBytes,
}: AutomaticPersistedQueriesOptions = {}): Plugin {
  const documents = new LRUCache<string, string>({
    maxSize: apqStoreBytes,
    sizeCalculation: (text, hash) => Buffer.byteLength(text) + hash.length,
  });
  const store: APQStore = {
    get: (hash) => documents.get(hash) ?? null,
    set: (hash, text) => void documents.set(hash, text),
  };
  const apq = useAPQ({ store });
  return {
    // Yoga's hook is async; most requests carry no persisted query and should not pay for a promise.
    onParams(payload) {
      const extensions = payload.params.extensions as { persistedQuery?: unknown } | undefined;
      if (extensions?.persistedQuery === undefined) return;
      return apq.onParams?.(payload);
    },
  };
}
