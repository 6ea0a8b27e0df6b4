import { badUserInput } from '../errors.js';

/** Longest id the gateway sends: far above any real id, far below a request line a server refuses. */
export const MAX_ID_LENGTH = 256;

/**
 * Whether the value can stand as exactly one URL path segment, percent-encoded: not empty, not a
 * dot segment, no separator or control character, no lone UTF-16 surrogate (which has no UTF-8
 * form to encode), and at most MAX_ID_LENGTH characters.
 */
export function isPathSegment(value: string): boolean {
  return (
    value !== '' &&
    value.length <= MAX_ID_LENGTH &&
    value !== '.' &&
    value !== '..' &&
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what the check refuses.
    !/[/?#\u0000-\u001f\u007f]/.test(value) &&
    // With the u flag a surrogate range matches only unpaired halves.
    !/[\uD800-\uDFFF]/u.test(value)
  );
}

/** A path parameter of a route template: `:name`. */
const PARAM = /:([A-Za-z]+)/g;

/**
 * Fills a route template such as `/videos/:videoId/hotspots/:id`. Keeping the template apart from
 * the filled path lets logs and metrics name the route without ids in it.
 */
export function fillRoute(template: string, params: Record<string, string> = {}): string {
  return template.replace(PARAM, (_, name: string) => {
    const value = params[name];
    if (value === undefined || !isPathSegment(value)) {
      throw badUserInput(`"${name}" must be a non-empty id of at most ${MAX_ID_LENGTH} characters that fits in one URL path segment.`);
    }
    return encodeURIComponent(value);
  });
}

/**
 * Splits a caller's fields into the route template's path parameters, each the field of the same
 * name as a string, and the fields that are left.
 */
export function routeParamsOf(
  template: string,
  fields: Record<string, unknown>,
): { params: Record<string, string>; rest: Record<string, unknown> } {
  const names = new Set([...template.matchAll(PARAM)].map((match) => match[1]!));
  const params: Record<string, string> = {};
  const rest: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(fields)) {
    if (names.has(field)) params[field] = String(value);
    else rest[field] = value;
  }
  return { params, rest };
}
