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
