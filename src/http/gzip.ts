import { promisify } from 'node:util';
import type * as zlib from 'node:zlib';
import { constants, gzip, gzipSync, type InputType } from 'node:zlib';

/** Above this, compress on zlib's thread pool rather than block the event loop. */
const SYNC_MAX_BYTES = 64 * 1024;
const OPTIONS = { level: constants.Z_BEST_SPEED };
const gzipAsync = promisify<InputType, zlib.ZlibOptions, Buffer<ArrayBuffer>>(gzip);

/**
 * An answer's body gzipped as every compressed answer is: level 1, in line below 64 KiB, each
 * choice measured in docs/performance.md, section Compression.
 */
export function gzipped(body: ArrayBuffer | Uint8Array): Buffer<ArrayBuffer> | Promise<Buffer<ArrayBuffer>> {
  return body.byteLength > SYNC_MAX_BYTES ? gzipAsync(body, OPTIONS) : gzipSync(body, OPTIONS);
}
