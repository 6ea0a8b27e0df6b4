import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { freePort } from './ports.js';
import { type RedisProcess, type RedisServer, redisFolder, runRedisProcess, startRedis } from './redis-server.js';

/** The name the Sentinels monitor the primary under: REDIS_SENTINEL_MASTER. */
export const SENTINEL_MASTER = 'gateway-primary';

/** How long a Sentinel waits for an answer of the primary before it holds it down: small, so that a failover takes seconds. */
const DOWN_AFTER_MS = 1_000;

export interface SentinelGroup {
  /** The primary at the start, and its replica. */
  primary: RedisServer;
  replica: RedisServer;
  sentinels: RedisProcess[];
  /** What a gateway is configured with: REDIS_SENTINELS, REDIS_SENTINEL_MASTER and REDIS_PASSWORD. */
  env: Record<string, string>;
  /** The port of the primary the Sentinels name now. */
  primaryPort(): Promise<number>;
  /** Resolves once the Sentinels name another primary than the one on `port`, and it answers as a primary. */
  failedOver(port: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A primary and its replica, each a redis-server requiring `password`, watched by three Sentinels
 * (`redis-server <config> --sentinel`, quorum two) that require it too, or none with
 * `sentinelPassword: false`; each on free loopback ports, in a folder of its own, stopped by its
 * PID. Resolves once every Sentinel knows the replica and the two other Sentinels, so that a
 * failover can start at once.
 */
export async function startSentinelGroup({
  password,
  sentinelPassword = true,
}: {
  password: string;
  sentinelPassword?: boolean;
}): Promise<SentinelGroup> {
  const primary = await startRedis({ password });
  const replica = await startRedis({ password, args: ['--replicaof', '127.0.0.1', String(primary.port)] });
  const sentinels: RedisProcess[] = [];
  try {
    for (let i = 0; i < 3; i++) {
      const dir = await redisFolder('sentinel');
      const config = join(dir, 'sentinel.conf');
      // Sentinel rewrites its file as it learns the replica, the other Sentinels and a failover.
      await writeFile(
        config,
        [
          ...(sentinelPassword ? [`requirepass "${password}"`] : []),
          `sentinel monitor ${SENTINEL_MASTER} 127.0.0.1 ${primary.port} 2`,
          `sentinel auth-pass ${SENTINEL_MASTER} "${password}"`,
          `sentinel down-after-milliseconds ${SENTINEL_MASTER} ${DOWN_AFTER_MS}`,
          `sentinel failover-timeout ${SENTINEL_MASTER} 10000`,
          '',
        ].join('\n'),
      );
      sentinels.push(await runRedisProcess({ port: await freePort(), dir, args: [config, '--sentinel'], ready: '+monitor master' }));
    }
    const ask = async <T>(sentinel: RedisProcess, command: (client: Redis) => Promise<T>): Promise<T> => {
      const client = new Redis({
        port: sentinel.port,
        host: '127.0.0.1',
        password: sentinelPassword ? password : undefined,
        lazyConnect: true,
        maxRetriesPerRequest: 0,
      });
      client.on('error', () => {});
      try {
        return await command(client);
      } finally {
        client.disconnect();
      }
    };
    const masterState = async (sentinel: RedisProcess) =>
      fields((await ask(sentinel, (client) => client.call('SENTINEL', 'MASTER', SENTINEL_MASTER))) as string[]);
    const ready = async () =>
      (await Promise.all(sentinels.map(masterState))).every(
        (state) => state['num-slaves'] === '1' && state['num-other-sentinels'] === '2' && state.flags === 'master',
      );
    await until(ready, 'the Sentinels to know the replica and each other');
    const primaryPort = async () => {
      const [, port] = (await ask(sentinels[0]!, (client) =>
        client.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', SENTINEL_MASTER),
      )) as string[];
      return Number(port);
    };
    return {
      primary,
      replica,
      sentinels,
      env: {
        REDIS_SENTINELS: sentinels.map((sentinel) => `127.0.0.1:${sentinel.port}`).join(','),
        REDIS_SENTINEL_MASTER: SENTINEL_MASTER,
        REDIS_PASSWORD: password,
      },
      primaryPort,
      failedOver: (port) =>
        until(async () => {
          const now = await primaryPort();
          if (now === port) return false;
          const client = new Redis({ port: now, host: '127.0.0.1', password, lazyConnect: true, maxRetriesPerRequest: 0 });
          client.on('error', () => {});
          try {
            return (await client.role())[0] === 'master';
          } finally {
            client.disconnect();
          }
        }, 'the Sentinels to promote the replica'),
      close: async () => {
        await Promise.all([...sentinels, primary, replica].map((server) => server.close()));
      },
    };
  } catch (error) {
    await Promise.all([...sentinels, primary, replica].map((server) => server.close()));
    throw error;
  }
}

/** A flat reply of alternating names and values, as an object. */
function fields(reply: string[]): Record<string, string> {
  const object: Record<string, string> = {};
  for (let i = 0; i + 1 < reply.length; i += 2) object[reply[i]!] = reply[i + 1]!;
  return object;
}

/** Polls `condition` every 100 ms until it holds; fails after 30 s, naming what it waited for. */
export async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const started = performance.now();
  for (;;) {
    if (await condition().catch(() => false)) return;
    if (performance.now() - started > 30_000) throw new Error(`Waited 30 s for ${what}.`);
    await sleep(100);
  }
}
