import { type GraphQLSchema, isEnumType, isInputObjectType, isInterfaceType, isObjectType } from 'graphql';
import { argumentCoordinate, fieldCoordinate } from '../field-usage.js';

/**
 * A deprecation, declared once in the schema code: what to use instead, the day the element may be
 * removed, and where the change is explained. `deprecated` turns it into the options Pothos takes;
 * the text lands in schema.graphql as the element's `@deprecated(reason:)`, where clients' codegen
 * and `npm run schema:breaking` read it, and the parts stay on the element's `extensions` for the
 * gateway. `deprecationOf` reads it back from either.
 */
export interface Deprecation {
  /** What to use instead, as sentences ending in a period: "Use `displayName` instead." */
  reason: string;
  /** The day (YYYY-MM-DD, UTC) it was deprecated: the date of the `Deprecation` header an operation that uses it gets (RFC 9745). */
  since: string;
  /** The first day (YYYY-MM-DD, UTC) the element may be removed; `npm run schema:breaking` refuses its removal before then. */
  sunset: string;
  /** Where the change is explained: an absolute http(s) URL, for the `Link` header with `rel="deprecation"`. */
  link?: string;
}

/** A deprecation as read back from a schema: `sunset` is undefined for a plain `@deprecated` made without `deprecated`. */
export interface DeprecationNotice {
  reason: string;
  /** Undefined when read from SDL, which does not say it. */
  since: string | undefined;
  sunset: string | undefined;
  link: string | undefined;
}

/** The key of an element's `extensions` that holds its `Deprecation`. */
const DEPRECATION_EXTENSION = 'deprecation';

// "<reason> See <link>. Sunset: YYYY-MM-DD." — the link in angle brackets, so that no URL's own characters end it early.
const REASON_TEXT = /^(?<reason>.+?)(?: See <(?<link>[^<>\s]+)>\.)? Sunset: (?<sunset>\d{4}-\d{2}-\d{2})\.$/s;

/**
 * The options of a deprecated field, argument, input field or enum value: spread them into its
 * Pothos options (`t.exposeString('name', { description, ...deprecated({ … }) })`). An element with
 * `extensions` of its own spreads these into them. A malformed declaration throws, so the schema
 * is not built.
 */
export function deprecated(deprecation: Deprecation): { deprecationReason: string; extensions: Record<string, Deprecation> } {
  const { reason, since, sunset, link } = deprecation;
  if (!/^\S.*\.$/s.test(reason) || /\bSunset:|\bSee </.test(reason)) {
    throw new Error(
      `A deprecation reason is one or more sentences ending in a period, without "Sunset:" or "See <": ${JSON.stringify(reason)}`,
    );
  }
  if (!isCalendarDay(sunset)) throw new Error(`A deprecation's sunset is a day written YYYY-MM-DD: ${JSON.stringify(sunset)}`);
  if (!isCalendarDay(since) || since > sunset) {
    throw new Error(`A deprecation's since is a day written YYYY-MM-DD, not after its sunset: ${JSON.stringify(since)}`);
  }
  if (link !== undefined && !isDocumentLink(link))
    throw new Error(`A deprecation's link is an absolute http(s) URL: ${JSON.stringify(link)}`);
  const seeAlso = link === undefined ? '' : ` See <${link}>.`;
  return {
    deprecationReason: `${reason}${seeAlso} Sunset: ${sunset}.`,
    extensions: { [DEPRECATION_EXTENSION]: link === undefined ? { reason, since, sunset } : { reason, since, sunset, link } },
  };
}

/**
 * The deprecation of a schema element (a `GraphQLField`, `GraphQLArgument`, `GraphQLInputField` or
 * `GraphQLEnumValue`), or undefined when it is not deprecated. From its `extensions` when the
 * schema was built by the code, from its deprecation reason when it was read from SDL. A reason
 * that names a sunset in another form throws: a removal date that cannot be read is not
 * silently no date.
 */
export function deprecationOf(element: {
  deprecationReason?: string | null | undefined;
  extensions?: Readonly<Record<string, unknown>> | null | undefined;
}): DeprecationNotice | undefined {
  if (element.deprecationReason == null) return undefined;
  const declared = element.extensions?.[DEPRECATION_EXTENSION] as Deprecation | undefined;
  if (declared) return { reason: declared.reason, since: declared.since, sunset: declared.sunset, link: declared.link };
  return parseDeprecationReason(element.deprecationReason);
}

/** Reads the text `deprecated` writes; any other reason is a plain deprecation without a sunset. */
function parseDeprecationReason(text: string): DeprecationNotice {
  const parts = REASON_TEXT.exec(text)?.groups;
  if (!parts) {
    if (/\bSunset:/.test(text))
      throw new Error(`The deprecation reason ${JSON.stringify(text)} names a sunset, but not as "Sunset: YYYY-MM-DD." at its end.`);
    return { reason: text, since: undefined, sunset: undefined, link: undefined };
  }
  if (!isCalendarDay(parts.sunset!))
    throw new Error(`The deprecation reason ${JSON.stringify(text)} names a sunset day that does not exist.`);
  return { reason: parts.reason!, since: undefined, sunset: parts.sunset, link: parts.link };
}

function isCalendarDay(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const day = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(day.getTime()) && day.toISOString().startsWith(text);
}

function isDocumentLink(text: string): boolean {
  if (/[\s<>]/.test(text)) return false;
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

/** The deprecated elements of a schema (fields, their arguments, input fields, enum values) by schema coordinate, with their deprecations. */
export function schemaDeprecations(schema: GraphQLSchema): Map<string, DeprecationNotice> {
  const found = new Map<string, DeprecationNotice>();
  const note = (coordinate: string, element: Parameters<typeof deprecationOf>[0]) => {
    const notice = deprecationOf(element);
    if (notice) found.set(coordinate, notice);
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        note(fieldCoordinate(type.name, field.name), field);
        for (const argument of field.args) note(argumentCoordinate(type.name, field.name, argument.name), argument);
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) note(fieldCoordinate(type.name, field.name), field);
    } else if (isEnumType(type)) {
      for (const value of type.getValues()) note(fieldCoordinate(type.name, value.name), value);
    }
  }
  return found;
}
