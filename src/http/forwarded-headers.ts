/** The longest value of a header sent on, in UTF-8 bytes. */
const MAX_HEADER_VALUE_BYTES = 1024;

/** Whether a value holds a control character, which no header value the gateway sends on may (a tab may: RFC 9110 §5.5). */
function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if ((code < 0x20 && code !== 0x09) || code === 0x7f) return true;
  }
  return false;
}

/** Whether a header value may be sent on: short enough, and without control characters. */
export function isSendableValue(value: string): boolean {
  return value.length <= MAX_HEADER_VALUE_BYTES && Buffer.byteLength(value) <= MAX_HEADER_VALUE_BYTES && !hasControlCharacter(value);
}

/** A client header to send upstream, under `upstreamName`. */
interface Forwarded {
  name: string;
  upstreamName: string;
}

/**
 * The headers of a client request that go upstream: those `listed` (FORWARD_HEADERS), under their
 * upstream names. One that the request's own `Connection` header names is hop by hop for this
 * request, and stays here; one whose value could not be sent on (`isSendableValue`) is `dropped`.
 */
export function forwardedHeaders(
  headers: Pick<Headers, 'get'>,
  listed: readonly Forwarded[],
): { headers: Record<string, string>; dropped: string[] } {
  const forwarded: Record<string, string> = {};
  const dropped: string[] = [];
  if (listed.length === 0) return { headers: forwarded, dropped };
  const hopByHop = new Set((headers.get('connection') ?? '').split(',').map((token) => token.trim().toLowerCase()));
  for (const { name, upstreamName } of listed) {
    const value = headers.get(name);
    if (value === null || hopByHop.has(name)) continue;
    if (isSendableValue(value)) forwarded[upstreamName] = value;
    else dropped.push(name);
  }
  return { headers: forwarded, dropped };
}
