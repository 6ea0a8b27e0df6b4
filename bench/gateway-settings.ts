// How a bench gateway is configured, in one process or as a cluster's primary and workers.

import { loadSettings } from '../src/config/load.js';
import type { Settings } from '../src/config/settings.js';

/**
 * By its environment, as a deployment is: production's defaults (no GraphiQL, introspection or
 * CORS), the upstream the benchmark runs, and unless a row says otherwise a rate limit that no run
 * reaches, so that its check is measured and never refuses; on loopback, on `ports` when given.
 */
export function benchGatewaySettings(ports: Partial<Record<'PORT' | 'METRICS_PORT', string>> = {}): Settings {
  return loadSettings({ RATE_LIMIT: '1000000', ...process.env, HOST: '127.0.0.1', ...ports });
}
