import cluster from 'node:cluster';
import type { Plugin } from 'graphql-yoga';
import { metricsOfAllWorkers } from '../observability/cluster-metrics.js';
import type { Metrics } from '../observability/metrics.js';

/**
 * Serves GET /metrics in Prometheus text format (GraphQL requests are counted through
 * `metrics.observeRequest`). Under WORKERS>1 the answer sums all workers, see src/observability/cluster-metrics.ts.
 */
export function useMetrics(metrics: Metrics): Plugin {
  return {
    async onRequest({ request, endResponse, fetchAPI }) {
      if (new URL(request.url).pathname !== '/metrics') return;
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        endResponse(new fetchAPI.Response(null, { status: 405, headers: { allow: 'GET, HEAD' } }));
        return;
      }
      const text = await (cluster.isWorker ? metricsOfAllWorkers() : metrics.registry.metrics()).catch(() => undefined);
      endResponse(
        text === undefined
          ? new fetchAPI.Response('metrics are unavailable right now\n', {
              status: 503,
              headers: { 'content-type': 'text/plain; charset=utf-8' },
            })
          : new fetchAPI.Response(text, { headers: { 'content-type': metrics.registry.contentType } }),
      );
    },
  };
}
