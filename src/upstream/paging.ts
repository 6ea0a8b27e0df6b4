import { badUserInput } from '../errors.js';
import { upstreamBadResponse } from './errors.js';

/** The upstream's largest page (`limit` 1-25). */
export const UPSTREAM_MAX_PAGE = 25;

/**
 * Where to resume after an edge: the upstream cursor of a page (null for the first page) and how
 * many records of that page to skip. This is what every edge cursor holds, so `after` can resume
 * from the middle of an upstream page.
 */
export interface ResumePoint {
  cursor: string | null;
  skip: number;
}

const CURSOR_PREFIX = 'c1:';

export function encodeCursor({ cursor, skip }: ResumePoint): string {
  return Buffer.from(`${CURSOR_PREFIX}${skip}:${cursor ?? ''}`).toString('base64url');
}

/** Decodes an `after` argument; anything the gateway did not issue is BAD_USER_INPUT. */
export function decodeCursor(value: string): ResumePoint {
  const invalid = () => badUserInput('"after" is not a cursor issued by this API.', [{ path: 'after', message: 'is not a valid cursor' }]);
  if (!/^[A-Za-z0-9_-]+$/.test(value)) throw invalid();
  const text = Buffer.from(value, 'base64url').toString('utf8');
  const match = /^c1:(\d{1,2}):(.*)$/s.exec(text);
  if (!match || Buffer.from(text).toString('base64url') !== value) throw invalid();
  const skip = Number(match[1]);
  if (skip > UPSTREAM_MAX_PAGE) throw invalid();
  return { cursor: match[2] === '' ? null : match[2]!, skip };
}

export interface UpstreamPage<T> {
  items: readonly T[];
  /** Cursor of the following page; null on the last page. */
  next: string | null;
}

interface Edge<T> {
  node: T;
  cursor: string;
}

export interface Connection<T> {
  edges: Edge<T>[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
}

export type FetchPage<T> = (cursor: string | null, limit: number) => Promise<UpstreamPage<T>>;

/**
 * `fetchPage` for one walk of a list, refusing a next cursor the walk has already read: the
 * upstream's loop, and its fault (UPSTREAM_BAD_RESPONSE). Read again, such a page comes from the
 * request's cache of identical reads, so a connection would repeat its records and a walk that
 * stops only once it has found its ids would never stop, blocking the process.
 */
export function walkOf<T>(fetchPage: FetchPage<T>): FetchPage<T> {
  const read = new Set<string | null>();
  return async (cursor, limit) => {
    read.add(cursor);
    const page = await fetchPage(cursor, limit);
    if (page.next !== null && read.has(page.next)) throw upstreamBadResponse('links.next points back to a page already read');
    return page;
  };
}

/**
 * Builds a forward connection of `first` records from an upstream that pages with a cursor and a
 * limit of at most 25: it follows next cursors page after page (never one it has read, `walkOf`)
 * until it has `first` records or the list ends.
 */
export async function forwardConnection<T>(pages: FetchPage<T>, first: number, after: ResumePoint | null): Promise<Connection<T>> {
  const fetchPage = walkOf(pages);
  const edges: Edge<T>[] = [];
  let { cursor, skip } = after ?? { cursor: null, skip: 0 };
  let hasNextPage = false;
  for (let pageIndex = 0; edges.length < first; pageIndex++) {
    const page = await fetchPage(cursor, Math.min(UPSTREAM_MAX_PAGE, skip + first - edges.length));
    if (pageIndex > 0 && page.items.length === 0 && page.next !== null) {
      throw upstreamBadResponse('an empty page pointed to a further page');
    }
    let index = skip;
    for (; index < page.items.length && edges.length < first; index++) {
      const isLastOfPage = index === page.items.length - 1;
      const resume = isLastOfPage && page.next !== null ? { cursor: page.next, skip: 0 } : { cursor, skip: index + 1 };
      edges.push({ node: page.items[index]!, cursor: encodeCursor(resume) });
    }
    if (edges.length >= first) {
      hasNextPage = index < page.items.length || page.next !== null;
      break;
    }
    if (page.next === null) break;
    cursor = page.next;
    skip = 0;
  }
  return {
    edges,
    pageInfo: {
      hasNextPage,
      hasPreviousPage: after !== null,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}

/**
 * Upstream pages `forwardConnection` fetches at most for `first` records after `after`: the
 * skipped head of the resumed page counts too. Unreadable arguments count 0, as the resolver
 * rejects them before any call.
 */
export function upstreamPagesFor(first: number, after: string | null | undefined, maxFirst: number): number {
  if (first <= 0 || first > maxFirst) return 0;
  let skip = 0;
  if (after != null) {
    try {
      skip = decodeCursor(after).skip;
    } catch {
      return 0;
    }
  }
  return Math.ceil((skip + first) / UPSTREAM_MAX_PAGE);
}
