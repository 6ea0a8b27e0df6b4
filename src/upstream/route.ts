import { badUserInput } from '../errors.js';

/** Values that cannot stand as exactly one URL path segment, even percent-encoded. */
export function isPathSegment(value: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what the check refuses.
  return value !== '' && value !== '.' && value !== '..' && !/[/?#\u0000-\u001f\u007f]/.test(value);
}

/**
 * Fills a route template such as `/videos/:videoId/hotspots/:id`. Keeping the template apart from
 * the filled path lets logs and metrics name the route without ids in it.
 */
export function fillRoute(template: string, params: Record<string, string> = {}): string {
  return template.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || !isPathSegment(value)) {
      throw badUserInput(`"${name}" must be a non-empty id that fits in one URL path segment.`);
    }
    return encodeURIComponent(value);
  });
}
