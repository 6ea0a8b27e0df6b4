import { type Plugin, useReadinessCheck } from 'graphql-yoga';

export interface ReadinessSources {
  /** True while the upstream circuit breaker fails calls fast. */
  circuitOpen(): boolean;
  /** True when the upstream answers HTTP at all. */
  upstreamReachable(): Promise<boolean>;
}

/**
 * GET /ready: 200 while the upstream circuit is not open or, when it is, the upstream answers a
 * probe; otherwise 503, so a load balancer sends callers to replicas that can serve them. The body
 * names the reason, never the upstream address.
 */
export function useReadiness(sources: ReadinessSources): Plugin {
  return useReadinessCheck({
    endpoint: '/ready',
    check: async ({ fetchAPI }) => {
      const ready = !sources.circuitOpen() || (await sources.upstreamReachable());
      return fetchAPI.Response.json(
        ready ? { status: 'ready' } : { status: 'unavailable', reason: 'upstream circuit open and upstream unreachable' },
        { status: ready ? 200 : 503 },
      );
    },
  });
}
