/**
 * The usage file: how many operations used each schema coordinate, by client, over some window.
 * `npm run schema:usage` writes it from the gateway's field-usage counter (src/field-usage.ts);
 * `npm run schema:breaking -- --usage` reads it. docs/schema.md shows it.
 *
 *   { "format": "vms-gateway-field-usage", "version": 1,
 *     "coordinates": { "ApiKey.name": { "web": 1200, "none": 3 }, "Query.apiKeys(first:)": { "web": 800 } } }
 */
import { z } from 'zod';
import { SCHEMA_COORDINATE } from '../src/field-usage.js';
import { InputError, readJson } from './schema-changes.js';

export const USAGE_FORMAT = 'vms-gateway-field-usage';

/** Coordinate, then client (the counter's `client` label), to a count of operations. */
export type UsageCounts = Map<string, Map<string, number>>;

/**
 * A JSON object read as a Map of its own keys. zod's records skip a `__proto__` key unchecked (a
 * plain object would take it as its prototype), and clients name themselves: a client called
 * `__proto__` or `constructor` is counted like any other.
 */
const mapOf = <V extends z.ZodType>(key: z.ZodType<string>, value: V) =>
  z.preprocess(
    (json) => (typeof json === 'object' && json !== null && !Array.isArray(json) ? new Map(Object.entries(json)) : json),
    z.map(key, value, 'Invalid input: expected an object'),
  );

/** A count of operations: a whole number JSON holds exactly, so no larger than Number.MAX_SAFE_INTEGER. */
export const usageCount = z.number().int().nonnegative();

const usageFile = z.object({
  format: z.literal(USAGE_FORMAT),
  version: z.literal(1),
  coordinates: mapOf(z.string(), mapOf(z.string().min(1), usageCount)),
});

export function readUsageFile(file: string): UsageCounts {
  const json = readJson(file);
  const usage = usageFile.safeParse(json);
  if (!usage.success) {
    const [issue] = usage.error.issues;
    const where = issue!.path.length === 0 ? '' : `${issue!.path.map(String).join(' > ')}: `;
    throw new InputError(`${file}: not a ${USAGE_FORMAT} file, version 1 (${where}${issue!.message}).`);
  }
  const wrong = [...usage.data.coordinates.keys()].find((coordinate) => !SCHEMA_COORDINATE.test(coordinate));
  if (wrong !== undefined) throw new InputError(`${file}: ${JSON.stringify(wrong)} is not a schema coordinate.`);
  return usage.data.coordinates;
}

/** The file's text for counts, keys sorted so that the same counts always print the same. */
export function usageFileText(counts: UsageCounts): string {
  // Object.fromEntries defines each key as the object's own, `__proto__` too.
  const sorted = <T>(map: Map<string, T>) => Object.fromEntries([...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const coordinates = sorted(new Map([...counts].map(([coordinate, clients]) => [coordinate, sorted(clients)])));
  return `${JSON.stringify({ format: USAGE_FORMAT, version: 1, coordinates }, null, 2)}\n`;
}
