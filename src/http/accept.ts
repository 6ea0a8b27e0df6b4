/** The media types Yoga answers an incremental result with (its multipart and SSE result processors). */
const INCREMENTAL_TYPES = [
  ['multipart', 'mixed'],
  ['text', 'event-stream'],
] as const;

/**
 * Whether an Accept header lets Yoga answer in parts: it names `multipart/mixed` or
 * `text/event-stream`, or a wildcard that covers one (`*\/*`, no header or an empty one), with no charset
 * but UTF-8. This is Yoga's own reading of the header (weights are not read), so that a result
 * Yoga could not send is never made.
 */
export function acceptsIncrementalDelivery(header: string | null): boolean {
  return (header || '*/*')
    .replace(/\s/g, '')
    .toLowerCase()
    .split(',')
    .some((entry) => {
      const [mediaType = '', ...params] = entry.split(';');
      const charset = params.find((param) => param.includes('charset='));
      if (charset !== undefined && charset !== 'charset=utf-8') return false;
      const [type, subtype] = mediaType.split('/');
      return INCREMENTAL_TYPES.some(([t, s]) => (type === '*' || type === t) && (subtype === '*' || subtype === s));
    });
}
