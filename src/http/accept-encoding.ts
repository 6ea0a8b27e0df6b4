/**
 * Whether an Accept-Encoding header takes gzip: `gzip`, `x-gzip` or `*`, with a weight above 0
 * (`gzip;q=0` refuses it). The one reading of the header, for compressed answers and GraphiQL's
 * pre-compressed files alike.
 */
export function acceptsGzip(header: string | null): boolean {
  if (header === null) return false;
  return header.split(',').some((part) => {
    const [coding = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (coding !== 'gzip' && coding !== 'x-gzip' && coding !== '*') return false;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}
