// Coalesced reads: a burst of identical reads at once over the 20 ms upstream, from one caller (one
// upstream call shared) and from as many callers (one call each), upstream calls and p50 compared.

import { apiKeysQuery } from './queries.js';
import { graphql, TOKEN } from './rows.js';
import type { ServerProcess } from './servers.js';
import { median } from './statistics.js';

/** Identical reads sent at once. */
export const BURST = 50;

export interface Burst {
  /** Calls the upstream received for the burst. */
  upstreamCalls: number;
  p50Ms: number;
}

/** Medians of two bursts of each kind, alternating, after one burst to warm the gateway up. */
export async function measureCoalescedReads(
  gateway: ServerProcess,
  upstream: ServerProcess,
): Promise<{ oneCaller: Burst; manyCallers: Burst }> {
  const burst = async (tokens: string[]): Promise<Burst> => {
    const count = async () => Number(await (await fetch(`http://127.0.0.1:${upstream.port}/requests`)).text());
    const before = await count();
    const times = await Promise.all(
      tokens.map(async (token) => {
        const started = performance.now();
        const job = graphql(gateway, apiKeysQuery(25), { authorization: token });
        await (await fetch(job.url, { method: 'POST', headers: job.headers, body: job.body })).arrayBuffer();
        return performance.now() - started;
      }),
    );
    return { upstreamCalls: (await count()) - before, p50Ms: median(times) };
  };
  const oneCaller = Array.from({ length: BURST }, () => TOKEN);
  const manyCallers = Array.from({ length: BURST }, (_, i) => `${TOKEN}-${i}`);
  // Warmed up first (the slow gateway may not have served a row), then each kind twice, alternating.
  await burst(manyCallers);
  const measured = { oneCaller: [] as Burst[], manyCallers: [] as Burst[] };
  for (let round = 0; round < 2; round++) {
    measured.oneCaller.push(await burst(oneCaller));
    measured.manyCallers.push(await burst(manyCallers));
  }
  const middle = (runs: Burst[]): Burst => ({
    upstreamCalls: median(runs.map((run) => run.upstreamCalls)),
    p50Ms: median(runs.map((run) => run.p50Ms)),
  });
  return { oneCaller: middle(measured.oneCaller), manyCallers: middle(measured.manyCallers) };
}
