/**
 * The media types of an Accept header as Yoga's result processors read them (graphql-yoga's
 * `getMediaTypesForRequestInOrder`): no header (or an empty one) is `*`/`*`, parameters are ignored
 * but a charset other than utf-8 rules its entry out, and `q` is not weighed. Read Yoga's way so
 * that the gateway never decides on an answer Yoga would then not write.
 */
function acceptedTypes(accept: string | null): string[] {
  return (accept || '*/*')
    .replace(/\s/g, '')
    .toLowerCase()
    .split(',')
    .filter((entry) => (entry.split(';').find((parameter) => parameter.includes('charset=')) ?? 'charset=utf-8') === 'charset=utf-8')
    .map((entry) => entry.split(';')[0]!);
}

/** Whether an accepted type (`*`/`*`, `application/*` or exact) covers a produced one, as Yoga matches them. */
function covers(accepted: string, produced: string): boolean {
  const [type, subtype] = accepted.split('/');
  const [producedType, producedSubtype] = produced.split('/');
  return (type === '*' || type === producedType) && (subtype === '*' || subtype === producedSubtype);
}

/** Whether an Accept header allows any of these media types, as Yoga reads it. */
export function acceptsAnyOf(accept: string | null, mediaTypes: readonly string[]): boolean {
  return acceptedTypes(accept).some((accepted) => mediaTypes.some((produced) => covers(accepted, produced)));
}

/** The media types Yoga writes one whole result in (its regular result processor), in its order. */
const WHOLE_RESULT_TYPES = ['application/graphql-response+json', 'application/json'] as const;

/**
 * The media type Yoga writes one whole result in for this Accept header, or undefined when it would
 * write it as a stream (an Accept of `multipart/mixed` or `text/event-stream` alone). Yoga's result
 * processors try every accepted type and the last match wins: its regular processor comes last, and
 * among the accepted types the first listed that it produces, `application/json` where that entry
 * covers both.
 */
export function wholeResultType(accept: string | null): (typeof WHOLE_RESULT_TYPES)[number] | undefined {
  for (const accepted of acceptedTypes(accept)) {
    if (covers(accepted, WHOLE_RESULT_TYPES[1])) return WHOLE_RESULT_TYPES[1];
    if (covers(accepted, WHOLE_RESULT_TYPES[0])) return WHOLE_RESULT_TYPES[0];
  }
  return undefined;
}
