// Compressed answers, checked once by decoding them (the load generator sees only bytes), and the
// bytes each sends on the wire beside its uncompressed row's.

import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import type { Row, RowJob } from './rows.js';

/** Each compressed row and the uncompressed row it is compared with. */
export const compressed = new Map([
  ['7a', '4'],
  ['7b', '3'],
]);

/**
 * One answer of each compressed row and of its uncompressed row: throws unless the decoded answers
 * are the same and the compressed one is smaller. Resolves with the wire bytes of each, by row id.
 */
export async function checkCompression(rows: Row[]): Promise<Map<string, number>> {
  const byId = (id: string) => rows.find((row) => row.id === id)!;
  const wireBytes = new Map<string, number>();
  for (const [id, baseId] of compressed) {
    const [answer, plain] = await Promise.all([fetchRaw(byId(id).job), fetchRaw(byId(baseId).job)]);
    wireBytes.set(baseId, plain.wireBytes);
    if (answer.text !== plain.text) throw new Error(`row ${id}: the decoded answer differs from the uncompressed one`);
    if (answer.wireBytes >= plain.wireBytes)
      throw new Error(
        `row ${id}: the answer was not compressed (${answer.wireBytes} bytes against ${plain.wireBytes}): ${answer.text.slice(0, 300)}`,
      );
    wireBytes.set(id, answer.wireBytes);
  }
  return wireBytes;
}

/** One answer's body as sent on the wire, and decoded. */
function fetchRaw(job: RowJob): Promise<{ wireBytes: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(job.url, { method: job.method, headers: job.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const wire = Buffer.concat(chunks);
        const encoding = res.headers['content-encoding'];
        const decoded = encoding === 'gzip' ? gunzipSync(wire) : wire;
        resolve({ wireBytes: wire.length, text: decoded.toString() });
      });
    });
    req.on('error', reject);
    req.end(job.body);
  });
}
