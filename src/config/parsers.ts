import { z } from 'zod';

/**
 * Parsers of environment variable text. Each message completes "NAME ...", and each parser's
 * `description` is what docs/configuration.md shows as the accepted values.
 */

/** A whole number from min to max; `what` names it in the message, e.g. "a port number". */
export const wholeNumber = (min: number, max: number, what = 'a whole number') => {
  const message = `must be ${what} from ${min} to ${max}`;
  return z
    .string()
    .regex(/^\d+$/, message)
    .transform(Number)
    .refine((n) => n >= min && n <= max, message)
    .describe(`${min}–${max}`);
};

export const milliseconds = (min: number, max: number) => wholeNumber(min, max, 'a whole number of milliseconds');
export const bytes = (min: number, max: number) => wholeNumber(min, max, 'a whole number of bytes');

/** true or false. */
export const flag = z
  .enum(['true', 'false'], 'must be true or false')
  .transform((v) => v === 'true')
  .describe('`true`, `false`');

/** Any text (an empty value is refused for every setting, by loadSettings). */
export const text = (what: string) => z.string().describe(what);

/** One of a fixed set of words. */
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, `must be one of ${values.join(', ')}`).describe(values.map((v) => `\`${v}\``).join(', '));

/** An http(s) URL. */
export const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).describe('http(s) URL');

/** The value as an http(s) URL, or undefined. */
function httpUrlOf(value: string): URL | undefined {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** The upstream's base address: http(s), path ending in /v2, no query or fragment. */
export const upstreamBaseUrl = z
  .string()
  .refine((value) => {
    const url = httpUrlOf(value);
    return url !== undefined && /\/v2\/?$/.test(url.pathname) && !url.search && !url.hash;
  }, 'must be an http(s) URL whose path ends in /v2, without query or fragment')
  .transform((value) => new URL(value.replace(/\/+$/, '')))
  .describe('http(s) URL ending in `/v2`');

/** Any origin may call: only when CORS_ORIGINS says `*`, or by default outside production. */
export const ANY_ORIGIN = '*';

const isOrigin = (value: string) => httpUrlOf(value)?.origin === value;

/** A comma-separated list of exact origins such as `https://app.example.com`, or `*`. */
export const originList = z
  .string()
  .transform((value) =>
    value
      .split(',')
      .map((origin) => origin.trim())
      .filter((origin) => origin !== ''),
  )
  .refine(
    (origins) => origins.every((origin) => origin === ANY_ORIGIN || isOrigin(origin)),
    'must be * or a comma-separated list of origins such as https://app.example.com (scheme, host and port only, no path)',
  )
  .describe('`*`, or origins separated by commas');
