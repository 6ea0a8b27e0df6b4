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

interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

export interface Connection<T> {
  edges: Edge<T>[];
  pageInfo: PageInfo;
}

/**
 * A connection whose edges arrive as its upstream pages do (for `@stream`): every iteration of
 * `edges` reads the same walk, from its first edge, and the next upstream page is fetched only
 * when a reader has read every edge so far; `pageInfo` is known once the walk has ended, and
 * reading it walks to the end. Its upstream calls are those of `forwardConnection` for the same
 * arguments, call for call.
 */
export interface StreamedConnection<T> {
  edges: AsyncIterable<Edge<T>>;
  readonly pageInfo: Promise<PageInfo>;
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
 * The walk of a forward connection of `first` records from an upstream that pages with a cursor
 * and a limit of at most 25: each `step` fetches one upstream page (never one the walk has read,
 * `walkOf`) and adds its edges, until there are `first` of them or the list ends.
 */
class ForwardWalk<T> {
  readonly edges: Edge<T>[] = [];
  #done: boolean;
  #hasNextPage = false;
  #pages = 0;
  #cursor: string | null;
  #skip: number;
  readonly #fetchPage: FetchPage<T>;
  readonly #first: number;
  readonly #after: ResumePoint | null;

  constructor(pages: FetchPage<T>, first: number, after: ResumePoint | null) {
    this.#fetchPage = walkOf(pages);
    this.#first = first;
    this.#after = after;
    ({ cursor: this.#cursor, skip: this.#skip } = after ?? { cursor: null, skip: 0 });
    this.#done = first <= 0;
  }

  /** True once the connection is complete: no further upstream page belongs to it. */
  get done(): boolean {
    return this.#done;
  }

  /** Fetches the next upstream page and adds its edges. */
  async step(): Promise<void> {
    const { edges } = this;
    const cursor = this.#cursor;
    const page = await this.#fetchPage(cursor, Math.min(UPSTREAM_MAX_PAGE, this.#skip + this.#first - edges.length));
    if (this.#pages++ > 0 && page.items.length === 0 && page.next !== null) {
      throw upstreamBadResponse('an empty page pointed to a further page');
    }
    let index = this.#skip;
    for (; index < page.items.length && edges.length < this.#first; index++) {
      const isLastOfPage = index === page.items.length - 1;
      const resume = isLastOfPage && page.next !== null ? { cursor: page.next, skip: 0 } : { cursor, skip: index + 1 };
      edges.push({ node: page.items[index]!, cursor: encodeCursor(resume) });
    }
    if (edges.length >= this.#first) {
      this.#hasNextPage = index < page.items.length || page.next !== null;
      this.#done = true;
    } else if (page.next === null) {
      this.#done = true;
    }
    this.#cursor = page.next;
    this.#skip = 0;
  }

  /** Right once the walk is done. */
  pageInfo(): PageInfo {
    return {
      hasNextPage: this.#hasNextPage,
      hasPreviousPage: this.#after !== null,
      startCursor: this.edges[0]?.cursor ?? null,
      endCursor: this.edges.at(-1)?.cursor ?? null,
    };
  }
}

/** Builds a forward connection of `first` records after `after` (see `ForwardWalk`), every page read before it returns. */
export async function forwardConnection<T>(pages: FetchPage<T>, first: number, after: ResumePoint | null): Promise<Connection<T>> {
  const walk = new ForwardWalk(pages, first, after);
  while (!walk.done) await walk.step();
  return { edges: walk.edges, pageInfo: walk.pageInfo() };
}

/**
 * The same connection as `forwardConnection`, streamed (`StreamedConnection`). One page is in
 * flight at most, whoever asked for it; a page that failed fails every reader that needs it and
 * is never asked for again. Before each page `signal` is checked, so a caller that went away
 * stops the walk.
 */
export function streamedConnection<T>(
  pages: FetchPage<T>,
  first: number,
  after: ResumePoint | null,
  signal?: AbortSignal,
): StreamedConnection<T> {
  const walk = new ForwardWalk(pages, first, after);
  let inFlight: Promise<void> | undefined;
  // Cleared when the page has arrived; a page that failed stays, rejected, so that every reader
  // after is answered its error and the page is never asked for again.
  const step = (): Promise<void> => {
    inFlight ??= (async () => {
      signal?.throwIfAborted();
      await walk.step();
    })().then(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
  const edges: AsyncIterable<Edge<T>> = {
    [Symbol.asyncIterator]: () => {
      let index = 0;
      let ended = false;
      return {
        next: async (): Promise<IteratorResult<Edge<T>>> => {
          while (!ended) {
            if (index < walk.edges.length) return { value: walk.edges[index++]!, done: false };
            if (walk.done) break;
            await step();
          }
          ended = true;
          return { value: undefined, done: true };
        },
        // The executor's, when the client has gone or the list was nulled: this reader asks for no further page.
        return: async (): Promise<IteratorResult<Edge<T>>> => {
          ended = true;
          return { value: undefined, done: true };
        },
      };
    },
  };
  let pageInfo: Promise<PageInfo> | undefined;
  return {
    edges,
    // Made when first read: only a reader of the page info walks to the end for it.
    get pageInfo() {
      pageInfo ??= (async () => {
        while (!walk.done) await step();
        return walk.pageInfo();
      })();
      return pageInfo;
    },
  };
}

/** The most upstream pages a connection of at most `maxFirst` records can fetch, whatever its `after`: one resumed past a whole page. */
export const mostUpstreamPages = (maxFirst: number) => Math.ceil((UPSTREAM_MAX_PAGE + maxFirst) / UPSTREAM_MAX_PAGE);

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
