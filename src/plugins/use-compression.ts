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
 * Gzips answers of at least `compressionMinBytes` for callers that accept gzip: gzip only, at
 * level 1, in line below 64 KiB, each choice measured in docs/performance.md, section Compression.
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
