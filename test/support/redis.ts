import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe } from 'vitest';
import { loadSettings } from '../../src/config/load.js';
import type { Settings } from '../../src/config/settings.js';
import { redisCliInstalled, startRedisCluster } from './redis-cluster.js';
import { startSentinelGroup } from './redis-sentinel.js';
import { redisServerInstalled, startRedis } from './redis-server.js';

export { type RedisServer, startRedis } from './redis-server.js';

const found = redisServerInstalled() && redisCliInstalled();

/**
 * A describe block that needs a real redis-server (and redis-cli, which comes with it). Without one
 * it is skipped with a message, except under CI=true, where a missing server fails the run: Redis
 * behaviour is never tested on a mock.
 */
export function describeWithRedis(name: string, tests: () => void): void {
  if (!found) {
    const message = `No redis-server and redis-cli on PATH: install them (apt-get install -y redis-server) or set REDIS_SERVER_PATH and REDIS_CLI_PATH.`;
    if (process.env.CI === 'true') throw new Error(`${message} CI=true, so the Redis tests may not be skipped.`);
    console.warn(`${message} The Redis tests in "${name}" are skipped.`);
  }
  describe.skipIf(!found)(name, tests);
}

/**
 * A command timeout that a machine busy with other jobs does not reach (at 100 ms, Redis commands
 * timed out at a load of 16 on two cores; the slowest of docs/shared-state.md's measurements took
 * 440 ms): for the tests of what the stores share, which a store answering without Redis would
 * fail; the tests of Redis failing set their own.
 */
export const UNHURRIED_COMMAND_TIMEOUT_MS = 2_000;

/** The settings that name the Redis a gateway shares its state through. */
export type RedisSettings = Partial<
  Pick<Settings, 'redisUrl' | 'redisSentinels' | 'redisSentinelMaster' | 'redisClusterNodes' | 'redisPassword'>
>;

/** A Redis the replicas share, started by a test, in one of the topologies the gateway supports. */
export interface SharedRedis {
  /** The variables a gateway process is configured with to reach it. */
  env: Record<string, string>;
  /** The same, as the settings of a gateway started in this process, read from `env` by the settings' own parsers. */
  settings: RedisSettings;
  /** A client of its own, for a test to look inside with (a Cluster's in a Redis Cluster); closed with it. */
  client(): Redis | Cluster;
  /** Every key whose name matches `pattern`, on every primary. */
  keys(pattern: string): Promise<string[]>;
  close(): Promise<void>;
}

/** Every topology, by the name tests are titled with: one server, a primary that Sentinels fail over, a Redis Cluster of three primaries. */
export const TOPOLOGIES = {
  'one Redis': async (password) => {
    const server = await startRedis({ password });
    return shared({ REDIS_URL: server.url }, () => new Redis(server.url), server.close);
  },
  'Redis behind Sentinels': async (password) => {
    const group = await startSentinelGroup({ password });
    return shared(group.env, () => new Redis({ port: group.primary.port, host: '127.0.0.1', password }), group.close);
  },
  'a Redis Cluster': async (password) => {
    const cluster = await startRedisCluster({ password });
    return shared(cluster.env, cluster.client, cluster.close);
  },
} satisfies Record<string, (password: string) => Promise<SharedRedis>>;

export type Topology = keyof typeof TOPOLOGIES;

function shared(env: Record<string, string>, connect: () => Redis | Cluster, close: () => Promise<void>): SharedRedis {
  const { redisUrl, redisSentinels, redisSentinelMaster, redisClusterNodes, redisPassword } = loadSettings(env);
  const clients: Array<Redis | Cluster> = [];
  const client = () => {
    const made = connect();
    made.on('error', () => {});
    clients.push(made);
    return made;
  };
  return {
    env,
    settings: { redisUrl, redisSentinels, redisSentinelMaster, redisClusterNodes, redisPassword },
    client,
    keys: async (pattern) => {
      const made = client();
      const primaries = made instanceof Cluster ? await clusterPrimaries(made) : [made];
      return (await Promise.all(primaries.map((primary) => primary.keys(pattern)))).flat();
    },
    close: async () => {
      for (const made of clients) made.disconnect();
      await close();
    },
  };
}

/** The primaries' connections of a cluster client, once it knows them. */
export async function clusterPrimaries(cluster: Cluster): Promise<Redis[]> {
  if (cluster.status !== 'ready') await new Promise((resolve) => cluster.once('ready', resolve));
  return cluster.nodes('master');
}

/**
 * The same tests against a Redis of each of `topologies` (every one unless given), each started
 * for the block, requiring `password`. `body` gets the running one.
 */
export function describeInEachTopology(
  name: string,
  body: (redis: () => SharedRedis, topology: Topology) => void,
  { password = 'a shared secret', topologies = Object.keys(TOPOLOGIES) as Topology[] }: { password?: string; topologies?: Topology[] } = {},
): void {
  for (const topology of topologies) {
    describeWithRedis(`${name}, on ${topology}`, () => {
      let redis: SharedRedis;
      beforeAll(async () => {
        redis = await TOPOLOGIES[topology](password);
      }, 60_000);
      afterAll(() => redis?.close());
      body(() => redis, topology);
    });
  }
}
