import type { Plugin } from 'graphql-yoga';
import { defaultSettings } from '../config/settings.js';
import { acceptsGzip } from '../http/accept-encoding.js';
import { gzipped } from '../http/gzip.js';

export interface CompressionOptions {
  /** Smallest answer that is gzipped, in bytes (COMPRESSION_MIN_BYTES). @default 1024 */
  compressionMinBytes?: number;
}

/**
 * Gzips answers of at least `compressionMinBytes` for callers that accept gzip (`gzipped`): gzip
 * only, each choice measured in docs/performance.md, section Compression.
 * Compressed request bodies are not accepted: inflating one would bypass the body size limit.
 */
export function useCompression({ compressionMinBytes = defaultSettings().compressionMinBytes }: CompressionOptions = {}): Plugin {
  return {
    onResponse: async ({ request, response, setResponse, fetchAPI }) => {
      const length = response.headers.get('content-length');
      if (length === null || Number(length) < compressionMinBytes || response.headers.has('content-encoding')) return;
      if (!acceptsGzip(request.headers.get('accept-encoding'))) return;
      const body = await response.arrayBuffer();
      const zipped = await gzipped(body);
      const headers = new fetchAPI.Headers(response.headers);
      headers.set('content-encoding', 'gzip');
      headers.set('content-length', String(zipped.length));
      headers.append('vary', 'Accept-Encoding');
      setResponse(new fetchAPI.Response(zipped, { status: response.status, statusText: response.statusText, headers }));
    },
  };
}
