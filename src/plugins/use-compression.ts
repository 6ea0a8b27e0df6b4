import { promisify } from 'node:util';
import { constants, gzip, gzipSync } from 'node:zlib';
import type { Plugin } from 'graphql-yoga';
import { defaultSettings } from '../config/settings.js';
import { acceptsGzip } from '../http/accept-encoding.js';

/** Above this, compress on zlib's thread pool rather than block the event loop. */
const SYNC_MAX_BYTES = 64 * 1024;
const OPTIONS = { level: constants.Z_BEST_SPEED };
const gzipAsync = promisify(gzip);

export interface CompressionOptions {
  /** Smallest answer that is gzipped, in bytes (COMPRESSION_MIN_BYTES). @default 1024 */
  compressionMinBytes?: number;
}

/**
 * Gzips answers of at least `compressionMinBytes` for callers that accept gzip. Measured choices
 * (docs/performance.md): gzip only, since every browser takes it and brotli at zlib's default
 * quality cost about 50 times more CPU to save 95% of the bytes instead of 92%; level 1, half the
 * CPU of the default level for compressed answers 5-17% larger; in line for the answers this API
 * produces, as handing a few kilobytes to the thread pool costs more CPU than compressing them.
 * Compressed request bodies are not accepted: inflating one would bypass the body size limit.
 */
export function useCompression({ compressionMinBytes = defaultSettings().compressionMinBytes }: CompressionOptions = {}): Plugin {
  return {
    onResponse: async ({ request, response, setResponse, fetchAPI }) => {
      const length = response.headers.get('content-length');
      if (length === null || Number(length) < compressionMinBytes || response.headers.has('content-encoding')) return;
      if (!acceptsGzip(request.headers.get('accept-encoding'))) return;
      const body = await response.arrayBuffer();
      const zipped = body.byteLength > SYNC_MAX_BYTES ? await gzipAsync(body, OPTIONS) : gzipSync(body, OPTIONS);
      const headers = new fetchAPI.Headers(response.headers);
      headers.set('content-encoding', 'gzip');
      headers.set('content-length', String(zipped.length));
      headers.append('vary', 'Accept-Encoding');
      setResponse(new fetchAPI.Response(zipped, { status: response.status, statusText: response.statusText, headers }));
    },
  };
}
