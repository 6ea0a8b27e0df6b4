/** The most characters a key may have, once unquoted. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** A bare key: printable ASCII but space, and neither the quote of a string nor the comma of a list. */
const BARE_KEY = /^[\x21\x23-\x2B\x2D-\x7E]+$/;

/**
 * The one reader of `Idempotency-Key` (IETF httpapi, draft 06: a structured-field string),
 * failing closed. The key is either
 *
 * - an sf-string (RFC 8941, 3.3.3): `"…"`, of printable ASCII (space included), `\"` and `\\` its
 *   only escapes, and nothing after its closing quote (no parameters);
 * - or bare, as many clients send it: printable ASCII without space, `"` or `,`;
 *
 * and 1 to 255 characters once unquoted. Anything else is refused (`'malformed'`): empty, a
 * control character, a character outside ASCII, parameters, two values (a header sent twice
 * reaches here as one joined with `, `). Undefined when the request sends none.
 */
export function idempotencyKeyOf(header: string | null): { key: string } | 'malformed' | undefined {
  if (header === null) return undefined;
  const key = header.startsWith('"') ? unquoted(header) : BARE_KEY.test(header) ? header : undefined;
  return key !== undefined && key.length >= 1 && key.length <= MAX_IDEMPOTENCY_KEY_LENGTH ? { key } : 'malformed';
}

/** An sf-string's characters, or undefined when `text` is anything more or less than one. */
function unquoted(text: string): string | undefined {
  let key = '';
  for (let i = 1; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22) return i === text.length - 1 ? key : undefined;
    if (code === 0x5c) {
      const next = text[++i];
      if (next !== '"' && next !== '\\') return undefined;
      key += next;
    } else if (code < 0x20 || code > 0x7e) return undefined;
    else key += text[i];
  }
  return undefined;
}
