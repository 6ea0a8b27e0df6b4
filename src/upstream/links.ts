/**
 * Where the upstream puts the next page's cursor. The contract leaves this open; the real service
 * answers `links.next` with a URL whose `cursor` query parameter is the cursor. Kept in one small
 * function so that a different upstream convention is a one-line change.
 *
 * Only the cursor is taken from a URL: the next request is always built against UPSTREAM_URL, so a
 * link to another host is never followed and the caller's token never goes there.
 *
 * Returns null on the last page, and undefined when `links` holds something unreadable.
 */
export function nextCursorFromLinks(links: unknown): string | null | undefined {
  if (links === undefined || links === null) return null;
  if (typeof links !== 'object' || Array.isArray(links)) return undefined;
  const { next, next_cursor: nextCursor, cursor } = links as Record<string, unknown>;
  if (next !== undefined && next !== null && next !== '') {
    return typeof next === 'string' ? cursorFromNext(next) : undefined;
  }
  for (const candidate of [nextCursor, cursor]) {
    if (typeof candidate === 'string' && candidate !== '') return candidate;
    if (candidate !== undefined && candidate !== null && candidate !== '') return undefined;
  }
  return null;
}

function cursorFromNext(next: string): string | undefined {
  const looksLikeUrl = /^[a-z][a-z0-9+.-]*:\/\//i.test(next) || next.startsWith('/') || next.startsWith('?');
  if (!looksLikeUrl) return next;
  const cursor = new URL(next, 'http://upstream.invalid').searchParams.get('cursor');
  return cursor === null || cursor === '' ? undefined : cursor;
}
