import { useReadinessCheck, type Plugin } from 'graphql-yoga';
import { request } from 'undici';

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
      return fetchAPI.Response.json(ready ? { status: 'ready' } : { status: 'unavailable', reason: 'upstream circuit open and upstream unreachable' }, { status: ready ? 200 : 503 });
    },
  });
}

/**
 * Whether any HTTP answer (401 included) comes from `baseUrl` within `timeoutMs`. Answers are
 * shared for `cacheMs`, so frequent probes from many load balancers cost one upstream request.
 */
export function upstreamProbe(baseUrl: URL, { timeoutMs = 2_000, cacheMs = 1_000 } = {}): () => Promise<boolean> {
  let last: { at: number; answer: Promise<boolean> } | undefined;
  return () => {
    if (last && performance.now() - last.at < cacheMs) return last.answer;
    const answer = request(baseUrl, { method: 'HEAD', reset: true, signal: AbortSignal.timeout(timeoutMs) }).then(
      async (response) => {
        await response.body.dump();
        return true;
      },
      () => false,
    );
    last = { at: performance.now(), answer };
    return answer;
  };
}
