import { afterAll, beforeAll, describe } from 'vitest';
import { describeWithRedis, type RedisServer, startRedis } from './redis.js';

/**
 * The same tests in both places the shared state can live: in the gateway's process (no
 * REDIS_URL), and in a real redis-server of the file's own. `body` gets the REDIS_URL to start
 * gateways with: undefined in process; in Redis, that server's, with a key prefix of the test's own.
 */
export function describeInEachStore(
  name: string,
  body: (redisUrl: () => URL | undefined, redis: () => RedisServer | undefined) => void,
): void {
  describe(`${name}, in process`, () =>
    body(
      () => undefined,
      () => undefined,
    ));
  describeWithRedis(`${name}, in Redis`, () => {
    let server: RedisServer;
    beforeAll(async () => {
      server = await startRedis();
    });
    afterAll(() => server.close());
    body(
      () => new URL(server.url),
      () => server,
    );
  });
}
