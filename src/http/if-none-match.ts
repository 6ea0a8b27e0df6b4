/** An entity tag as RFC 9110 (8.8.3) writes it: optionally weak, then a quoted opaque tag, which may hold commas. */
const ENTITY_TAG = /(?:W\/)?("[^"]*")/g;

/**
 * Whether an If-None-Match header matches a representation's ETag, so that a GET is answered 304
 * (RFC 9110, 13.1.2): `*` matches any representation, and a listed tag matches by weak comparison,
 * its opaque tag alone, `W/` or not, since a cache may keep a weak copy of a strong tag.
 */
export function ifNoneMatchMatches(header: string | null, etag: string): boolean {
  if (header === null) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return [...header.matchAll(ENTITY_TAG)].some(([, tag]) => tag === opaque);
}
