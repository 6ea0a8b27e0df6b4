// The gateway under test as WORKERS above 1 runs it, `npm start`'s way: a primary
// (src/server/cluster.ts) forking workers that share its port, each started by startGateway. The
// benchmark talks to the primary, which reports the CPU and RSS of all of them, summed from /proc.
// bench/gateway.ts loads it, in the primary and in each worker.

import cluster from 'node:cluster';
import { createLogger } from '../src/observability/logger.js';
import { reportListening, runPrimary } from '../src/server/cluster.js';
import { startGateway } from '../src/server/start.js';
import { benchGatewaySettings } from './gateway-settings.js';
import { freePort } from './peer.js';
import { reportToParent } from './probe.js';
import { treeUsage } from './tree-usage.js';

// On the ports the primary picked: in a cluster every worker's listen(0) is handed one port, for both of its servers.
const settings = benchGatewaySettings();
if (cluster.isPrimary) {
  runPrimary({
    workers: settings.workers,
    logger: createLogger({ level: 'silent' }),
    env: { PORT: String(await freePort()), METRICS_PORT: String(await freePort()) },
    onListening: (port) => reportToParent(port, undefined, () => treeUsage(process.pid)),
    cleanup: async () => {},
  });
} else {
  const running = await startGateway(settings);
  reportListening(running.port, running.metricsPort);
}
