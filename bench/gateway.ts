// The gateway under test, started by the same function as `npm start` (src/server/start.ts),
// with production's defaults, against the upstream named in UPSTREAM_URL. With BENCH_ALLOCATIONS=DIR it also
// samples every allocation (those the garbage collector has freed included) and writes the
// profile to DIR when the benchmark lets it go: `npm run bench -- --allocations DIR`.

import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';
import { startGateway } from '../src/server/start.js';
import { reportToParent } from './probe.js';

/** Samples allocations from now on; the returned function writes the profile into `dir`. */
function sampleAllocations(dir: string): () => Promise<void> {
  const session = new Session();
  session.connect();
  session.post('HeapProfiler.startSampling', {
    samplingInterval: 32_768,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  return () =>
    new Promise((resolve) =>
      session.post('HeapProfiler.stopSampling', (error, result) => {
        if (!error) {
          mkdirSync(dir, { recursive: true });
          writeFileSync(join(dir, `${process.pid}.heapprofile`), JSON.stringify(result.profile));
        }
        resolve();
      }),
    );
}

const writeAllocations = process.env.BENCH_ALLOCATIONS ? sampleAllocations(process.env.BENCH_ALLOCATIONS) : undefined;

// Production's defaults (no GraphiQL, introspection or CORS), as a deployment runs.
const running = await startGateway({
  production: true,
  upstreamUrl: new URL(process.env.UPSTREAM_URL!),
  host: '127.0.0.1',
  port: 0,
  metricsPort: 0,
});
reportToParent(running.port, writeAllocations);
