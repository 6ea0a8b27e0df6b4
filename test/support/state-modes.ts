import { randomUUID } from 'node:crypto';
import { describe } from 'vitest';
import type { StartOptions } from '../../src/server/start.js';
import type { Start } from './fixtures.js';
import type { TestGateway } from './gateway.js';
import type { RecordingUpstream, Script } from './recording-upstream.js';
import { describeInEachTopology, type RedisSettings, UNHURRIED_COMMAND_TIMEOUT_MS } from './redis.js';

/** Starts an upstream answering from `script` and a gateway in front of it, with `options`, in one of the stores. */
export type StartInStore = (
  servers: Start,
  script: Script,
  options?: StartOptions,
) => Promise<{ upstream: RecordingUpstream; gateway: TestGateway }>;

/**
 * The same tests in each place the shared state can live: in the gateway's process (no Redis), in
 * a real redis-server of the file's own, and in a Redis Cluster of three of them. `body` gets the
 * `start` to start gateways with: in process, without Redis; in Redis, with that Redis, and each
 * gateway with a key prefix of the test's own.
 */
export function describeInEachStore(name: string, body: (start: StartInStore) => void): void {
  const startIn =
    (redis: () => RedisSettings): StartInStore =>
    async (servers, script, options = {}) => {
      const upstream = await servers.upstream(script);
      const gateway = await servers.gateway({
        upstreamUrl: new URL(upstream.url),
        ...redis(),
        redisCommandTimeoutMs: UNHURRIED_COMMAND_TIMEOUT_MS,
        redisKeyPrefix: `test-${randomUUID()}:`,
        ...options,
      });
      return { upstream, gateway };
    };
  describe(`${name}, in process`, () => body(startIn(() => ({}))));
  describeInEachTopology(name, (redis) => body(startIn(() => redis().settings)), { topologies: ['one Redis', 'a Redis Cluster'] });
}
