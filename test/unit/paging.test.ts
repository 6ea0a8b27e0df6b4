import { describe, expect, it } from 'vitest';
import {
  decodeCursor,
  encodeCursor,
  forwardConnection,
  type StreamedConnection,
  streamedConnection,
  type UpstreamPage,
  walkOf,
} from '../../src/upstream/paging.js';

describe('cursor codec', () => {
  it('round-trips a resume point, with and without an upstream cursor', () => {
    expect(decodeCursor(encodeCursor({ cursor: null, skip: 3 }))).toEqual({ cursor: null, skip: 3 });
    expect(decodeCursor(encodeCursor({ cursor: 'eyJvZmZzZXQiOjI1fQ:x', skip: 0 }))).toEqual({ cursor: 'eyJvZmZzZXQiOjI1fQ:x', skip: 0 });
  });

  it('issues opaque, URL-safe strings', () => {
    expect(encodeCursor({ cursor: 'a/b+c=', skip: 12 })).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it.each([
    ['empty', ''],
    ['not base64url', 'abc$'],
    ['foreign base64', Buffer.from('hello').toString('base64url')],
    ['skip beyond a page', Buffer.from('c1:26:').toString('base64url')],
    ['non-canonical padding', `${encodeCursor({ cursor: null, skip: 1 })}=`],
  ])('rejects a cursor that is %s as BAD_USER_INPUT', (_, value) => {
    expect(() => decodeCursor(value)).toThrow(
      expect.objectContaining({
        message: '"after" is not a cursor issued by this API.',
        extensions: { code: 'BAD_USER_INPUT', issues: [{ path: 'after', message: 'is not a valid cursor' }] },
      }),
    );
  });
});

/** An upstream of `total` records named 1..total, paged by an offset cursor. */
function fakeList(total: number) {
  const calls: Array<{ cursor: string | null; limit: number }> = [];
  const fetchPage = async (cursor: string | null, limit: number): Promise<UpstreamPage<number>> => {
    calls.push({ cursor, limit });
    const offset = cursor === null ? 0 : Number(cursor);
    const items = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => offset + i + 1);
    const next = offset + items.length < total ? String(offset + items.length) : null;
    return { items, next };
  };
  return { calls, fetchPage };
}

describe('forwardConnection', () => {
  it('serves a first page in one upstream call', async () => {
    const list = fakeList(62);
    const page = await forwardConnection(list.fetchPage, 3, null);
    expect(page.edges.map((e) => e.node)).toEqual([1, 2, 3]);
    expect(list.calls).toEqual([{ cursor: null, limit: 3 }]);
    expect(page.pageInfo).toEqual({
      hasNextPage: true,
      hasPreviousPage: false,
      startCursor: page.edges[0]!.cursor,
      endCursor: page.edges[2]!.cursor,
    });
  });

  it('chains upstream pages of 25 to serve first: 100', async () => {
    const list = fakeList(200);
    const page = await forwardConnection(list.fetchPage, 100, null);
    expect(page.edges.map((e) => e.node)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(list.calls).toEqual([
      { cursor: null, limit: 25 },
      { cursor: '25', limit: 25 },
      { cursor: '50', limit: 25 },
      { cursor: '75', limit: 25 },
    ]);
    expect(page.pageInfo.hasNextPage).toBe(true);
  });

  it('stops at the end of the list and says there is no next page', async () => {
    const list = fakeList(62);
    const page = await forwardConnection(list.fetchPage, 100, null);
    expect(page.edges).toHaveLength(62);
    expect(list.calls).toHaveLength(3);
    expect(page.pageInfo.hasNextPage).toBe(false);
  });

  it('resumes after an edge in the middle of an upstream page', async () => {
    const list = fakeList(62);
    const first = await forwardConnection(list.fetchPage, 10, null);
    list.calls.length = 0;
    const second = await forwardConnection(list.fetchPage, 5, decodeCursor(first.edges[6]!.cursor));
    expect(second.edges.map((e) => e.node)).toEqual([8, 9, 10, 11, 12]);
    expect(list.calls).toEqual([{ cursor: null, limit: 12 }]);
    expect(second.pageInfo.hasPreviousPage).toBe(true);
  });

  it('resumes after the last edge of an upstream page from the next upstream cursor, without refetching', async () => {
    const list = fakeList(62);
    const first = await forwardConnection(list.fetchPage, 25, null);
    list.calls.length = 0;
    const second = await forwardConnection(list.fetchPage, 2, decodeCursor(first.pageInfo.endCursor!));
    expect(second.edges.map((e) => e.node)).toEqual([26, 27]);
    expect(list.calls).toEqual([{ cursor: '25', limit: 2 }]);
  });

  it('resumes from a page boundary inside a chained page', async () => {
    const list = fakeList(62);
    const page = await forwardConnection(list.fetchPage, 40, null);
    const resumed = await forwardConnection(list.fetchPage, 30, decodeCursor(page.pageInfo.endCursor!));
    expect(resumed.edges.map((e) => e.node)).toEqual(Array.from({ length: 22 }, (_, i) => i + 41));
    expect(resumed.pageInfo.hasNextPage).toBe(false);
  });

  it('answers first: 0 without calling the upstream', async () => {
    const list = fakeList(62);
    const page = await forwardConnection(list.fetchPage, 0, null);
    expect(page).toEqual({ edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null } });
    expect(list.calls).toEqual([]);
  });

  it('treats an empty page that points further as a broken upstream instead of looping', async () => {
    const fetchPage = async (cursor: string | null): Promise<UpstreamPage<number>> =>
      cursor === null ? { items: [1], next: 'again' } : { items: [], next: 'again' };
    await expect(forwardConnection(fetchPage, 5, null)).rejects.toMatchObject({ extensions: { code: 'UPSTREAM_BAD_RESPONSE' } });
  });

  it('refuses a next cursor that points back to a page it read, rather than repeating its records', async () => {
    const calls: Array<string | null> = [];
    const fetchPage = async (cursor: string | null): Promise<UpstreamPage<number>> => {
      calls.push(cursor);
      return { items: Array.from({ length: 25 }, (_, i) => i), next: cursor === 'b' ? 'a' : cursor === 'a' ? 'b' : 'a' };
    };
    await expect(forwardConnection(fetchPage, 100, null)).rejects.toMatchObject({
      message: 'The upstream service sent a response the gateway cannot read: links.next points back to a page already read.',
      extensions: { code: 'UPSTREAM_BAD_RESPONSE' },
    });
    expect(calls).toEqual([null, 'a', 'b']);
  });
});

describe('walkOf', () => {
  const pointingTo = (next: string | null) => async (): Promise<UpstreamPage<number>> => ({ items: [1], next });

  it('passes pages through while each next cursor is new to the walk', async () => {
    const walk = walkOf(async (cursor) => ({ items: [1], next: cursor === null ? 'a' : cursor === 'a' ? 'b' : null }));
    expect(await walk(null, 25)).toEqual({ items: [1], next: 'a' });
    expect(await walk('a', 25)).toEqual({ items: [1], next: 'b' });
    expect(await walk('b', 25)).toEqual({ items: [1], next: null });
  });

  it('refuses a page pointing to itself, or to the start of the walk, as UPSTREAM_BAD_RESPONSE', async () => {
    await expect(walkOf(pointingTo('a'))('a', 25)).rejects.toMatchObject({ extensions: { code: 'UPSTREAM_BAD_RESPONSE' } });
    const walk = walkOf(pointingTo('start'));
    await expect(walk('start', 25)).rejects.toMatchObject({ extensions: { code: 'UPSTREAM_BAD_RESPONSE' } });
  });

  it('starts afresh for each walk: another connection may read the same pages', async () => {
    const fetchPage = async (cursor: string | null): Promise<UpstreamPage<number>> => ({ items: [1], next: cursor === null ? 'a' : null });
    for (let i = 0; i < 2; i++) expect(await walkOf(fetchPage)(null, 25)).toEqual({ items: [1], next: 'a' });
  });
});

/** Reads `count` edges of a streamed connection (all of them when omitted), as the executor reads a streamed list. */
async function read<T>(edges: StreamedConnection<T>['edges'], count = Number.POSITIVE_INFINITY) {
  const iterator = edges[Symbol.asyncIterator]();
  const read: Array<{ node: T; cursor: string }> = [];
  while (read.length < count) {
    const step = await iterator.next();
    if (step.done) break;
    read.push(step.value);
  }
  return { read, iterator };
}

describe('streamedConnection', () => {
  it.each([
    ['first: 100 over four pages', 200, 100, null],
    ['first: 100 of a list of 62', 62, 100, null],
    ['first: 30 after an edge in the middle of a page', 62, 30, { cursor: '25', skip: 3 }],
    ['first: 0', 62, 0, null],
  ])('%s: the same edges, cursors, page info and upstream calls as forwardConnection', async (_, total, first, after) => {
    const plain = fakeList(total);
    const streamed = fakeList(total);
    const whole = await forwardConnection(plain.fetchPage, first, after);
    const connection = streamedConnection(streamed.fetchPage, first, after);
    expect({ edges: (await read(connection.edges)).read, pageInfo: await connection.pageInfo }).toEqual(whole);
    expect(streamed.calls).toEqual(plain.calls);
  });

  it('fetches the next upstream page only once a reader has read every edge before it', async () => {
    const list = fakeList(200);
    const { iterator } = await read(streamedConnection(list.fetchPage, 100, null).edges, 25);
    expect(list.calls).toEqual([{ cursor: null, limit: 25 }]);
    await iterator.next();
    expect(list.calls).toEqual([
      { cursor: null, limit: 25 },
      { cursor: '25', limit: 25 },
    ]);
  });

  it('lets edges and nodes (two readers) and the page info read one walk: each page is fetched once', async () => {
    const list = fakeList(200);
    const connection = streamedConnection(list.fetchPage, 60, null);
    const [edges, nodes, pageInfo] = await Promise.all([read(connection.edges), read(connection.edges), connection.pageInfo]);
    expect(nodes.read).toEqual(edges.read);
    expect(edges.read.map((edge) => edge.node)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect(pageInfo.hasNextPage).toBe(true);
    expect(list.calls.map((call) => call.cursor)).toEqual([null, '25', '50']);
  });

  it('fails every reader that needs a page that failed, keeps what was read before it, and never asks for that page again', async () => {
    const list = fakeList(200);
    const failing = async (cursor: string | null, limit: number) => {
      if (cursor === '25') {
        list.calls.push({ cursor, limit });
        throw new Error('page 2 failed');
      }
      return list.fetchPage(cursor, limit);
    };
    const connection = streamedConnection(failing, 100, null);
    const { read: first, iterator } = await read(connection.edges, 25);
    expect(first).toHaveLength(25);
    await expect(iterator.next()).rejects.toThrow('page 2 failed');
    await expect(read(connection.edges)).rejects.toThrow('page 2 failed');
    await expect(connection.pageInfo).rejects.toThrow('page 2 failed');
    expect(list.calls.map((call) => call.cursor)).toEqual([null, '25']);
  });

  it('asks for no further page once the signal is aborted (the client went away)', async () => {
    const list = fakeList(200);
    const client = new AbortController();
    const connection = streamedConnection(list.fetchPage, 100, null, client.signal);
    const { iterator } = await read(connection.edges, 25);
    client.abort();
    await expect(iterator.next()).rejects.toThrow('This operation was aborted');
    expect(list.calls).toHaveLength(1);
  });

  it('stops a reader that is closed: it reads no further, and alone it makes no further call', async () => {
    const list = fakeList(200);
    const { iterator } = await read(streamedConnection(list.fetchPage, 100, null).edges, 25);
    expect(await iterator.return!()).toEqual({ done: true, value: undefined });
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    expect(list.calls).toHaveLength(1);
  });
});
