import { hash } from 'node:crypto';
import { aged } from '../http/merged-headers.js';
import { type OperationRecord, OperationSlot } from '../operation-record.js';
import type { CachedAnswer, CacheLookup, ResponseCache } from './response-cache.js';

/** What an operation's read is looked up by: its caller (a `callerKey`) and its request (`requestKey`). */
export interface LookupKey {
  caller: string;
  request: string;
}

/** Where an operation's answer is stored: its key, and the caller's generation its lookup found. */
export type StoredUnder = LookupKey & Pick<CacheLookup, 'generation'>;

/** A document that opens with a mutation or a subscription, after what GraphQL ignores (white space, commas, comments). */
const OPENS_WITH_A_WRITE = /^(?:[\s,\uFEFF]|#[^\n\r]*)*(?:mutation|subscription)\b/;

/**
 * Whether a document's text may hold the query it runs, by its first word: one that opens with a
 * mutation or a subscription is no lookup (only queries are kept). A document of several
 * operations is looked up as a query might be, and its lookup taken back if it runs another.
 */
export const mayBeQuery = (query: string) => !OPENS_WITH_A_WRITE.test(query);

/** What identifies a request for the cache: its document text, operation name and variables, and the headers it sends upstream, hashed. */
export function requestKey(
  { query, operationName, variables }: { query: string; operationName?: string | null; variables?: object | null },
  forwarded: Readonly<Record<string, string>> | undefined,
): string {
  return hash('sha256', JSON.stringify([query, operationName ?? null, variables ?? null, forwarded ?? null]), 'base64url');
}

/**
 * The read cache as operations look their reads up in it: each operation's lookup is made once,
 * whoever looks first (the hit path before Yoga, or useResponseCache), and found again by the one
 * that comes after, for the same caller and request only; a lookup for another key is made anew,
 * never answered with one made for someone else.
 */
export class CacheLookups {
  readonly #made = new OperationSlot<{ key: LookupKey; lookup: Promise<CacheLookup> }>();

  constructor(readonly cache: ResponseCache) {}

  lookUp(record: OperationRecord, key: LookupKey): Promise<CacheLookup> {
    const made = this.#made.get(record);
    if (made && made.key.caller === key.caller && made.key.request === key.request) return made.lookup;
    const lookup = this.cache.get(key.caller, key.request);
    this.#made.set(record, { key, lookup });
    return lookup;
  }
}

/** What a hit says of its operation, on its record: a query answered from the cache with data, under the name it ran with, giving back the headers kept with it, aged. */
export function noteHit(record: OperationRecord, answer: CachedAnswer): void {
  record.cache = 'hit';
  record.hasData = true;
  record.operationType = 'query';
  record.operationName = answer.operationName;
  record.replayedHeaders = answer.headers && aged(answer.headers, Math.floor((Date.now() - answer.storedAt) / 1000));
}
