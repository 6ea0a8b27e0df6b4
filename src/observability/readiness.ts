import { request } from 'undici';

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
