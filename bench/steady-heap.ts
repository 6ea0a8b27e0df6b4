// What a gateway still holds after load: the heap in use after two full collections, once after
// 5 s of apiKeys(first: 25) at 50 connections and again after another 5 s, with the read cache off
// and on (every request then a hit of one caller), in this process, in front of the embedded sandbox.
// A build that keeps something per request grows between the two readings.
//   npm run bench:heap [-- BUILD]   BUILD: a compiled build's folder (default: this one's)

import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';

const build = process.argv[2] ?? new URL('..', import.meta.url).pathname;
const { startGateway } = (await import(pathToFileURL(`${build}/src/server/start.js`).href)) as typeof import('../src/server/start.js');
const { loadSettings } = (await import(pathToFileURL(`${build}/src/config/load.js`).href)) as typeof import('../src/config/load.js');
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc (npm run bench:heap does)');

const heapMB = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

for (const cacheTtlMs of ['0', '60000']) {
  const running = await startGateway(
    loadSettings({
      HOST: '127.0.0.1',
      PORT: '0',
      METRICS_PORT: '0',
      SANDBOX: 'true',
      CACHE_TTL_MS: cacheTtlMs,
      RATE_LIMIT: '1000000',
    }),
  );
  const load = () =>
    new Promise<autocannon.Result>((resolve, reject) =>
      autocannon(
        {
          url: `http://127.0.0.1:${running.port}/graphql`,
          method: 'POST',
          connections: 50,
          duration: 5,
          headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${running.sandboxToken}` },
          body: JSON.stringify({ query: '{ apiKeys(first: 25) { edges { cursor node { id name type permissions createdTime } } } }' }),
        },
        (error, result) => (error ? reject(error) : resolve(result)),
      ),
    );
  const readings: string[] = [];
  for (let i = 0; i < 2; i++) {
    const result = await load();
    await sleep(500);
    readings.push(`${heapMB().toFixed(1)} MB after ${result.requests.total} requests (${result.non2xx} not 2xx)`);
  }
  console.log(`CACHE_TTL_MS=${cacheTtlMs}: heap in use ${readings.join(', then ')}.`);
  await running.close();
}
