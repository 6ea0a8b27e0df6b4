import { describe } from 'vitest';
import { redisServerInstalled } from './redis-server.js';

export { type RedisServer, startRedis } from './redis-server.js';

const found = redisServerInstalled();

/**
 * A describe block that needs a real redis-server. Without one it is skipped with a message, except
 * under CI=true, where a missing server fails the run: Redis behaviour is never tested on a mock.
 */
export function describeWithRedis(name: string, tests: () => void): void {
  if (!found) {
    const message = `No redis-server on PATH: install it (apt-get install -y redis-server) or set REDIS_SERVER_PATH.`;
    if (process.env.CI === 'true') throw new Error(`${message} CI=true, so the Redis tests may not be skipped.`);
    console.warn(`${message} The Redis tests in "${name}" are skipped.`);
  }
  describe.skipIf(!found)(name, tests);
}
