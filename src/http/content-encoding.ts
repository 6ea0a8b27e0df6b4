/**
 * Whether a request's Content-Encoding says its body is compressed (or otherwise coded): any
 * coding but `identity`, which RFC 9110 reserves for "no coding". The gateway reads no coded body:
 * inflating one would pass the body limit by the compression ratio.
 */
export function isContentCoded(header: string | undefined): boolean {
  if (header === undefined) return false;
  return header.split(',').some((coding) => {
    const name = coding.trim().toLowerCase();
    return name !== '' && name !== 'identity';
  });
}
