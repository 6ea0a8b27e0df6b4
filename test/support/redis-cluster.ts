import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { Cluster, Redis } from 'ioredis';
import { freePort } from './ports.js';
import { until } from './redis-sentinel.js';
import { dataNodeArgs, type RedisProcess, redisFolder, runRedisProcess } from './redis-server.js';

/** redis-cli, which Debian's redis-server brings along (package redis-tools), or REDIS_CLI_PATH. */
const REDIS_CLI = process.env.REDIS_CLI_PATH ?? 'redis-cli';

/** Whether there is a redis-cli to make a cluster with. */
export const redisCliInstalled = () => spawnSync(REDIS_CLI, ['--version']).status === 0;

export interface RedisCluster {
  /** Its primaries, each with its own slots. */
  nodes: RedisProcess[];
  /** What a gateway is configured with: REDIS_CLUSTER_NODES (every node) and REDIS_PASSWORD. */
  env: Record<string, string>;
  /** A client of the cluster's, for a test to look inside; closed with it. */
  client(): Cluster;
  /** A client of one node alone. */
  nodeClient(node: RedisProcess): Redis;
  close(): Promise<void>;
}

/**
 * A Redis Cluster of `primaries` primaries (no replicas), each a redis-server with
 * `cluster-enabled yes`, its own nodes.conf in a folder of its own, on free loopback ports (and a
 * free cluster bus port), requiring `password`; joined with `redis-cli --cluster create`. Resolves
 * once every node sees the cluster ok. A primary that answers nothing for `nodeTimeoutMs`
 * (`cluster-node-timeout`) is held failed by the others, and the cluster refuses every command.
 */
export async function startRedisCluster({
  password,
  primaries = 3,
  nodeTimeoutMs = 5_000,
}: {
  password: string;
  primaries?: number;
  nodeTimeoutMs?: number;
}): Promise<RedisCluster> {
  const nodes: RedisProcess[] = [];
  const clients: Array<Redis | Cluster> = [];
  const close = async () => {
    for (const client of clients) client.disconnect();
    await Promise.all(nodes.map((node) => node.close()));
  };
  try {
    for (let i = 0; i < primaries; i++) {
      const dir = await redisFolder('cluster-node');
      const args = [
        ...dataNodeArgs(password),
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-port',
        String(await freePort()),
        '--cluster-node-timeout',
        String(nodeTimeoutMs),
      ];
      nodes.push(await runRedisProcess({ port: await freePort(), dir, args }));
    }
    await promisify(execFile)(REDIS_CLI, ['--cluster', 'create', ...nodes.map((node) => `127.0.0.1:${node.port}`), '--cluster-yes'], {
      // Not -a, which redis-cli warns about on every call.
      env: { ...process.env, REDISCLI_AUTH: password },
    });
    const nodeClient = (node: RedisProcess) => {
      const client = new Redis({ port: node.port, host: '127.0.0.1', password, maxRetriesPerRequest: 0 });
      client.on('error', () => {});
      clients.push(client);
      return client;
    };
    const probes = nodes.map(nodeClient);
    await until(
      async () => (await Promise.all(probes.map((probe) => probe.cluster('INFO')))).every((info) => info.includes('cluster_state:ok')),
      'the cluster to be ok on every node',
    );
    return {
      nodes,
      env: { REDIS_CLUSTER_NODES: nodes.map((node) => `127.0.0.1:${node.port}`).join(','), REDIS_PASSWORD: password },
      client: () => {
        const client = new Cluster(
          nodes.map((node) => ({ host: '127.0.0.1', port: node.port })),
          { redisOptions: { password } },
        );
        client.on('error', () => {});
        clients.push(client);
        return client;
      },
      nodeClient,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
