import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe } from 'vitest';
import type { StartOptions } from '../../src/server/start.js';
import type { Start } from './fixtures.js';
import type { TestGateway } from './gateway.js';
import type { RecordingUpstream, Script } from './recording-upstream.js';
import { describeWithRedis, type RedisServer, startRedis } from './redis.js';

/** Starts an upstream answering from `script` and a gateway in front of it, with `options`, in one of the stores. */
export type StartInStore = (
  servers: Start,
  script: Script,
  options?: StartOptions,
) => Promise<{ upstream: RecordingUpstream; gateway: TestGateway }>;

/**
 * The same tests in both places the shared state can live: in the gateway's process (no
 * REDIS_URL), and in a real redis-server of the file's own. `body` gets the `start` to start
 * gateways with: in process, without REDIS_URL; in Redis, with that server's, and each gateway
 * with a key prefix of the test's own.
 */
export function describeInEachStore(name: string, body: (start: StartInStore) => void): void {
  const startIn =
    (redisUrl: () => URL | undefined): StartInStore =>
    async (servers, script, options = {}) => {
      const upstream = await servers.upstream(script);
      const gateway = await servers.gateway({
        upstreamUrl: new URL(upstream.url),
        redisUrl: redisUrl(),
        redisKeyPrefix: `test-${randomUUID()}:`,
        ...options,
      });
      return { upstream, gateway };
    };
  describe(`${name}, in process`, () => body(startIn(() => undefined)));
  describeWithRedis(`${name}, in Redis`, () => {
    let server: RedisServer;
    beforeAll(async () => {
      server = await startRedis();
    });
    afterAll(() => server.close());
    body(startIn(() => new URL(server.url)));
  });
}
