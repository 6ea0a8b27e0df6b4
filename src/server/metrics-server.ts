import cluster from 'node:cluster';
import type { Server } from 'node:http';
import type { SectionSettings } from '../config/settings.js';
import { metricsOfAllWorkers } from '../observability/cluster-metrics.js';
import type { Metrics } from '../observability/metrics.js';
import { boundedServer } from './bounded-server.js';

/**
 * The server of METRICS_PORT: `GET /metrics` in Prometheus text format and nothing else, kept off
 * the public port so that only what reaches this port (the scraper, by network policy) reads it.
 * Under WORKERS>1 the answer sums all workers, see src/observability/cluster-metrics.ts. It listens
 * on HOST too, so its connections have the GraphQL port's bounds (`boundedServer`): a network
 * policy may be missing, and a scraper needs neither long-held sockets nor thousands of them.
 */
export function createMetricsServer(metrics: Metrics, settings: SectionSettings<'server'>): Server {
  return boundedServer(settings, metrics.observeConnectionClosed, (req, res) => {
    const path = new URL(req.url ?? '/', 'http://metrics').pathname;
    if (path !== '/metrics') return void res.writeHead(404).end();
    if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405, { allow: 'GET, HEAD' }).end();
    (cluster.isWorker ? metricsOfAllWorkers() : metrics.registry.metrics()).then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(req.method === 'HEAD' ? undefined : text),
      () => res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics are unavailable right now\n'),
    );
  });
}
