import { createHash } from 'node:crypto';

/** The SHA-256 of `text` in hex: the hash automatic persisted queries name a document by. */
export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The `extensions` of a request that names `text` by its hash, as Apollo's PersistedQueryLink and urql's persistedExchange send them. */
export const apqExtensions = (text: string) => ({ persistedQuery: { version: 1, sha256Hash: sha256(text) } });
