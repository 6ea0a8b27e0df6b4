import { spawnSync } from 'node:child_process';
import { describe } from 'vitest';

import { REDIS_SERVER } from './redis-server.js';

export { type RedisServer, startRedis } from './redis-server.js';

const found = spawnSync(REDIS_SERVER, ['--version']).status === 0;

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
