// The gateway under test, started by the same function as `npm start` (src/server/start.ts),
// configured by environment variables, against the upstream named in UPSTREAM_URL. With WORKERS above
// 1 it runs as bench/cluster-gateway.ts says. With BENCH_ALLOCATIONS=DIR it also
// samples every allocation (those the garbage collector has freed included) and writes the
// profile to DIR when the benchmark lets it go: `npm run bench -- --allocations DIR`.

import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';
import { startGateway } from '../src/server/start.js';
import { benchGatewaySettings } from './gateway-settings.js';
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

if (Number(process.env.WORKERS ?? 1) > 1) {
  // Loaded only for it: the other gateways run exactly what they ran before WORKERS had a row.
  await import('./cluster-gateway.js');
} else {
  // On ports it picks.
  const running = await startGateway(benchGatewaySettings({ PORT: '0', METRICS_PORT: '0' }));
  reportToParent(running.port, writeAllocations);
}
