import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { type ChildGateway, spawnGateway } from '../support/child-gateway.js';

/**
 * What a setting turns on is loaded (import()) where start-up reads the setting, and only then: a
 * gateway started without Redis, tracing, GraphiQL or the sandbox holds none of their code. The
 * modules a started gateway has loaded are recorded by an --import hook (test/support/loaded-modules.ts).
 */

/** What each optional feature loads, by a part of its modules' URLs: its packages and our modules that only it uses. */
const OPTIONAL: Record<string, RegExp> = {
  redis: /\/node_modules\/(ioredis|@ioredis|cluster-key-slot)\/|\/src\/state\/redis-/,
  // @opentelemetry/api is not among them: prom-client requires it, for its exemplars.
  tracing: /\/node_modules\/@opentelemetry\/(?!api\/)|\/src\/observability\/tracing|\/src\/plugins\/use-tracing\./,
  graphiql: /\/src\/graphiql\/|\/src\/plugins\/use-graphiql-assets\./,
  sandbox: /\/src\/sandbox\//,
};

let folder: string | undefined;
let gateway: ChildGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  if (folder) await rm(folder, { recursive: true, force: true });
  gateway = folder = undefined;
});

/** The optional features whose modules a gateway started with `env` has loaded once it listens. */
async function featuresLoaded(env: Record<string, string>): Promise<string[]> {
  folder = await mkdtemp(join(tmpdir(), 'start-modules-'));
  const file = join(folder, 'loaded.txt');
  gateway = await spawnGateway({ ...env, LOADED_MODULES_FILE: file }, { nodeArgs: ['--import', './test/support/loaded-modules.ts'] });
  const loaded = (await readFile(file, 'utf8')).split('\n');
  expect(loaded.some((url) => url.endsWith('/src/server/start.ts'))).toBe(true);
  return Object.entries(OPTIONAL).flatMap(([feature, pattern]) => (loaded.some((url) => pattern.test(url)) ? [feature] : []));
}

it('in production without Redis, tracing, GraphiQL or the sandbox, loads none of them', { timeout: 30_000 }, async () => {
  expect(await featuresLoaded({ UPSTREAM_URL: 'http://127.0.0.1:9/v2' })).toEqual([]);
});

it('loads each feature its setting turns on', { timeout: 30_000 }, async () => {
  // Neither is reached: Redis is not waited for, and spans would be exported only once made.
  const env = {
    REDIS_URL: 'redis://127.0.0.1:9',
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
    NODE_ENV: 'development',
    GRAPHIQL: 'true',
  };
  expect(await featuresLoaded(env)).toEqual(['redis', 'tracing', 'graphiql', 'sandbox']);
});
