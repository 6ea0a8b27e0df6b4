import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Counter, Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIELD_USAGE_METRIC } from '../../src/field-usage.js';
import { appFolder, ROOT } from '../support/app-folder.js';
import { runDocumentedCommands } from '../support/documented-command.js';
import { describeWithPrometheus, startPrometheus } from '../support/prometheus.js';

/**
 * `npm run schema:breaking` and `npm run schema:usage` as CI and an operator run them: their own
 * processes, on the manifests an app's real build tools write (graphql-codegen's client preset and
 * Apollo's generator), against a base schema with fields and an enum value on their way out.
 * Each case removes one of them. Hand-made files, and every file refused, are in
 * test/unit/schema-breaking.test.ts.
 */
const execute = promisify(execFile);
const SCHEMA = await readFile(join(ROOT, 'schema.graphql'), 'utf8');
const DOCS = await readFile(join(ROOT, 'docs/schema.md'), 'utf8');
const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };

/** The lines of docs/schema.md's shell blocks that hold `text`: the commands it prints. */
const printed = (text: string) =>
  [...DOCS.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((block) => block[1]!.split('\n')).filter((line) => line.includes(text));

/** A server that answers every request with /metrics as a gateway that counted `uses` writes it. */
async function metricsServer(uses: [coordinate: string, client: string, count: number][]): Promise<Server> {
  const registry = new Registry();
  const counter = new Counter({ ...FIELD_USAGE_METRIC, labelNames: [...FIELD_USAGE_METRIC.labelNames], registers: [registry] });
  for (const [coordinate, client, count] of uses) counter.inc({ coordinate, client }, count);
  const server = createServer(async (_request, response) => {
    response.setHeader('content-type', registry.contentType);
    response.end(await registry.metrics());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}
const closing = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));
const urlOf = (server: Server) => `http://127.0.0.1:${(server.address() as { port: number }).port}`;

/** What each case removes from the base, by the lines that declare it. */
const ON_THEIR_WAY_OUT = {
  label: ['  """Old name."""', '  label: String! @deprecated(reason: "Use name instead. Sunset: 2020-01-31.")'],
  retired: ['  """Unused."""', '  retired: String! @deprecated(reason: "Nothing replaces it. Sunset: 2020-01-31.")'],
  alias: ['  """Another name, never deprecated."""', '  alias: String!'],
  nickname: [
    '  """A name deprecated until far ahead."""',
    '  nickname: String! @deprecated(reason: "Use name instead. Sunset: 2999-12-31.")',
  ],
  legacy: ['  """An old role."""', '  LEGACY @deprecated(reason: "Use VIEWER instead. Sunset: 2020-01-31.")'],
};
type Leaving = keyof typeof ON_THEIR_WAY_OUT;
const schemaWithout = (...removed: Leaving[]) => {
  const lines = (...names: Leaving[]) => names.filter((name) => !removed.includes(name)).flatMap((name) => ON_THEIR_WAY_OUT[name]);
  return SCHEMA.replace(
    'type ApiKey implements AuditedRecord {',
    ['type ApiKey implements AuditedRecord {', ...lines('label', 'retired', 'alias', 'nickname')].join('\n'),
  ).replace('enum UserRole {', ['enum UserRole {', ...lines('legacy')].join('\n'));
};

/** The app's operations: one reads the deprecated `label`, one sends the deprecated role `LEGACY`. */
const OPERATIONS = {
  'src/keys.graphql': 'query Keys($after: String) { apiKeys(first: 10, after: $after) { nodes { id name } } }',
  'src/key-labels.graphql': 'query KeyLabels { apiKeys(first: 5) { nodes { id label } } }',
  'src/promote.graphql': 'mutation Promote($id: ID!) { updateUser(input: { id: $id, role: LEGACY }) { user { id role } } }',
};

let app: Awaited<ReturnType<typeof appFolder>>;
let codegenManifest: string;
let apolloManifest: string;
/** Each manifest's id of each operation. */
const ids: Record<string, Record<string, string>> = {};

beforeAll(async () => {
  app = await appFolder();
  await app.write('schema/vms-gateway.graphql', schemaWithout());
  for (const [path, text] of Object.entries(OPERATIONS)) await app.write(path, `${text}\n`);
  // The README's codegen set-up, with the documents in .graphql files.
  await app.write(
    'codegen.ts',
    `export default {
  schema: 'schema/vms-gateway.graphql',
  documents: ['src/**/*.graphql'],
  generates: { './src/gql/': { preset: 'client', presetConfig: { persistedDocuments: { hashAlgorithm: 'sha256' } } } },
};
`,
  );
  await app.write(
    'persisted-query-manifest.config.json',
    JSON.stringify({ documents: ['src/**/*.graphql'], output: 'persisted-query-manifest.json' }),
  );
  await execute(join(app.path, 'node_modules/.bin/graphql-codegen'), [], { cwd: app.path });
  await execute(join(app.path, 'node_modules/.bin/generate-persisted-query-manifest'), [], { cwd: app.path });
  codegenManifest = join(app.path, 'src/gql/persisted-documents.json');
  apolloManifest = join(app.path, 'persisted-query-manifest.json');
  const codegen = JSON.parse(await readFile(codegenManifest, 'utf8')) as Record<string, string>;
  ids[codegenManifest] = Object.fromEntries(
    Object.entries(codegen).map(([hash, body]) => [/(?:query|mutation) (\w+)/.exec(body)![1]!, hash]),
  );
  const apollo = JSON.parse(await readFile(apolloManifest, 'utf8')) as { operations: { id: string; name: string }[] };
  ids[apolloManifest] = Object.fromEntries(apollo.operations.map(({ id, name }) => [name, id]));
}, 60_000);
afterAll(() => app?.close());

/** A script of scripts/ in its own process, as `npm run` starts it: its exit code and output. */
async function script(name: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execute(process.execPath, ['--import', 'tsx', `scripts/${name}.ts`, ...args], { cwd: ROOT });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

/** schema:breaking from the base to the base without `removed`, on both manifests. */
async function breaking(removed: Leaving[], ...more: string[]) {
  const next = join(app.path, `next-without-${removed.join('-')}.graphql`);
  await writeFile(next, schemaWithout(...removed));
  const base = join(app.path, 'schema/vms-gateway.graphql');
  const result = await script('schema-breaking', ['--base', base, '--next', next, '--manifest', codegenManifest, apolloManifest, ...more]);
  const heading = `Breaking changes from ${base} to ${next}, checked against 6 registered operations of 2 manifests`;
  return { ...result, heading };
}
const inBoth = (name: string) => [codegenManifest, apolloManifest].map((manifest) => `${name} (${ids[manifest]![name]}) in ${manifest}`);

/** The report of a removal, after its sunset, that breaks `operation` in both manifests. */
function breaksInBoth(heading: string, operation: string, error: string, change: { coordinate: string; message: string }): string {
  const [inCodegen, inApollo] = inBoth(operation);
  return `${heading}.

Broken operations (2):
  ${inCodegen}, at ${change.coordinate}:
    ${error}
  ${inApollo}, at ${change.coordinate}:
    ${error}

Breaking changes (1):
  ${change.coordinate}: ${change.message}
    used by 2 registered operations:
      ${inCodegen}, broken
      ${inApollo}, broken
    deprecated in the base schema, sunset 2020-01-31

Failed: 2 broken operations; 1 breaking change used by registered operations.
`;
}

describe('schema:breaking on the manifests of graphql-codegen and Apollo', () => {
  it('lists each manifest as its tool wrote it', () => {
    expect(Object.keys(ids[codegenManifest]!).sort()).toEqual(['KeyLabels', 'Keys', 'Promote']);
    expect(Object.values(ids[codegenManifest]!).every((hash) => /^sha256:[0-9a-f]{64}$/.test(hash))).toBe(true);
    expect(Object.keys(ids[apolloManifest]!).sort()).toEqual(['KeyLabels', 'Keys', 'Promote']);
    expect(Object.values(ids[apolloManifest]!).every((hash) => /^[0-9a-f]{64}$/.test(hash))).toBe(true);
  });

  it('fails the registered operations a removed field breaks, in each manifest, at that field', async () => {
    const { code, stdout, stderr, heading } = await breaking(['label']);
    expect({ code, stderr }).toEqual({ code: 1, stderr: '' });
    expect(stdout).toBe(
      breaksInBoth(heading, 'KeyLabels', 'Cannot query field "label" on type "ApiKey". Did you mean "name"?', {
        coordinate: 'ApiKey.label',
        message: "Field 'label' (deprecated) was removed from object type 'ApiKey'",
      }),
    );
  });

  it('names the removed enum value that an operation sends', async () => {
    const { code, stdout, heading } = await breaking(['legacy']);
    expect(code).toBe(1);
    expect(stdout).toBe(
      breaksInBoth(heading, 'Promote', 'Value "LEGACY" does not exist in "UserRole" enum.', {
        coordinate: 'UserRole.LEGACY',
        message: "Enum value 'LEGACY' (deprecated) was removed from enum 'UserRole'",
      }),
    );
  });

  it('passes a removal nothing uses as "safe: unused", and fails it once the usage file schema:usage made of a scrape counts it', async () => {
    const safe = await breaking(['retired']);
    expect(safe).toEqual({
      code: 0,
      stderr: '',
      heading: safe.heading,
      stdout: `${safe.heading}.

Breaking changes (1):
  ApiKey.retired: Field 'retired' (deprecated) was removed from object type 'ApiKey'
    deprecated in the base schema, sunset 2020-01-31
    safe: unused

Passed: 1 breaking change, all safe: unused.
`,
    });

    const registry = new Registry();
    const counter = new Counter({ ...FIELD_USAGE_METRIC, labelNames: [...FIELD_USAGE_METRIC.labelNames], registers: [registry] });
    counter.inc({ coordinate: 'ApiKey.retired', client: 'ios' }, 2);
    counter.inc({ coordinate: 'ApiKey.name', client: 'web' }, 7);
    await app.write('metrics.txt', await registry.metrics());
    const usage = await script('schema-usage', [join(app.path, 'metrics.txt')]);
    expect(usage.code).toBe(0);
    await app.write('usage.json', usage.stdout);

    const used = await breaking(['retired'], '--usage', join(app.path, 'usage.json'));
    expect(used.code).toBe(1);
    expect(used.stdout).toBe(`${used.heading}, and ${join(app.path, 'usage.json')} (at least 1 request).

Breaking changes (1):
  ApiKey.retired: Field 'retired' (deprecated) was removed from object type 'ApiKey'
    used by traffic: 2 requests (ios: 2)
    deprecated in the base schema, sunset 2020-01-31

Failed: 1 breaking change used by traffic.
`);
  });

  it.for(['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__', 'web'])(
    'fails a removal that traffic of a client named %s uses, read from the usage file like any other name',
    async (client) => {
      const usage = join(app.path, `usage-of-${client}.json`);
      await writeFile(
        usage,
        `{"format": "vms-gateway-field-usage", "version": 1, "coordinates": {"ApiKey.retired": {${JSON.stringify(client)}: 100}}}`,
      );
      const used = await breaking(['retired'], '--usage', usage);
      expect({ code: used.code, stderr: used.stderr }).toEqual({ code: 1, stderr: '' });
      expect(used.stdout).toContain(`    used by traffic: 100 requests (${client}: 100)\n`);
    },
  );

  it('counts coordinates and clients that share a name with what every object has, from a scrape to the report', async () => {
    const family = FIELD_USAGE_METRIC.name;
    const sample = (coordinate: string, client: string, count: number) =>
      `${family}{coordinate="${coordinate}",client="${client}"} ${count}`;
    await app.write(
      'prototype-metrics.txt',
      [
        `# TYPE ${family} counter`,
        sample('__proto__', 'web', 2),
        sample('ApiKey.retired', 'constructor', 3),
        sample('ApiKey.retired', '__proto__', 4),
        sample('ApiKey.retired', 'toString', 1),
        sample('ApiKey.retired', 'toString', 1),
        '',
      ].join('\n'),
    );
    const usage = join(app.path, 'prototype-usage.json');
    const written = await script('schema-usage', [join(app.path, 'prototype-metrics.txt'), '--out', usage]);
    expect({ code: written.code, stderr: written.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(await readFile(usage, 'utf8'))).toEqual(
      JSON.parse(
        '{"format": "vms-gateway-field-usage", "version": 1, "coordinates": {"ApiKey.retired": {"__proto__": 4, "constructor": 3, "toString": 2}, "__proto__": {"web": 2}}}',
      ),
    );
    const used = await breaking(['retired'], '--usage', usage);
    expect(used.code).toBe(1);
    expect(used.stdout).toContain('    used by traffic: 9 requests (__proto__: 4, constructor: 3, toString: 2)\n');
  });

  it('refuses a removal without deprecation, or before its sunset, that nothing uses', async () => {
    const { code, stdout, heading } = await breaking(['alias', 'nickname']);
    expect(code).toBe(1);
    expect(stdout).toBe(`${heading}.

Breaking changes (2):
  ApiKey.alias: Field 'alias' was removed from object type 'ApiKey'
    removed without deprecation: deprecate it, with a sunset date, before removing it
  ApiKey.nickname: Field 'nickname' (deprecated) was removed from object type 'ApiKey'
    removed before its sunset date, 2999-12-31

Failed: 1 removal without deprecation; 1 removal before its sunset date.
`);
  });

  it('checks against the schema the code builds when --next is not given, and reports in JSON', async () => {
    const base = join(app.path, 'schema/vms-gateway.graphql');
    const { code, stdout } = await script('schema-breaking', [
      '--base',
      base,
      '--manifest',
      codegenManifest,
      '--manifest',
      apolloManifest,
      '--json',
    ]);
    expect(code).toBe(1);
    const report = JSON.parse(stdout);
    expect([report.result, report.next]).toEqual(['fail', 'the schema the code builds']);
    expect(
      report.brokenOperations.map((operation: { name: string; coordinates: string[] }) => [operation.name, operation.coordinates]),
    ).toEqual([
      ['KeyLabels', ['ApiKey.label']],
      ['Promote', ['UserRole.LEGACY']],
      ['KeyLabels', ['ApiKey.label']],
      ['Promote', ['UserRole.LEGACY']],
    ]);
    expect(
      report.breakingChanges.map((change: { coordinate: string; problems: string[] }) => [change.coordinate, change.problems]),
    ).toEqual([
      ['ApiKey.alias', ['not-deprecated']],
      ['ApiKey.label', ['registered-operations']],
      ['ApiKey.nickname', ['before-sunset']],
      ['ApiKey.retired', []],
      ['UserRole.LEGACY', ['registered-operations']],
    ]);
  });
});

describe('schema:usage, refusing what it cannot count', () => {
  const TYPE = `# TYPE ${FIELD_USAGE_METRIC.name} counter`;
  const sample = (count: string) => `${FIELD_USAGE_METRIC.name}{coordinate="ApiKey.retired",client="web"} ${count}`;

  it('exits 2 for counts that add up past what a usage file holds, rather than write one schema:breaking refuses', async () => {
    const sources = await Promise.all(
      ['1.7e308', '1.7e308', '9007199254740991', '1'].map(async (count, index) => {
        await app.write(`huge-${index}.txt`, `${TYPE}\n${sample(count)}\n`);
        return join(app.path, `huge-${index}.txt`);
      }),
    );
    const out = join(app.path, 'huge-usage.json');
    for (const pair of [sources.slice(0, 2), sources.slice(2)]) {
      expect(await script('schema-usage', [...pair, '--out', out])).toEqual({
        code: 2,
        stdout: '',
        stderr: 'schema:usage: the count of ApiKey.retired by "web" adds up to more than 9007199254740991, more than a usage file holds.\n',
      });
    }
    await expect(readFile(out, 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('names the error code of a URL it cannot fetch, or why fetch refused it', async () => {
    const closed = await metricsServer([]);
    const url = `${urlOf(closed)}/metrics`;
    await closing(closed);
    expect(await script('schema-usage', [url])).toEqual({
      code: 2,
      stdout: '',
      stderr: `schema:usage: ${url}: cannot be fetched (ECONNREFUSED).\n`,
    });
    // X11's port, which fetch refuses to connect to at all (the Fetch standard's "bad port").
    expect(await script('schema-usage', ['http://127.0.0.1:6000/metrics'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'schema:usage: http://127.0.0.1:6000/metrics: cannot be fetched (bad port).\n',
    });
  });
});

describe('the commands docs/schema.md prints that write a file', () => {
  it('write the usage file of two gateways, and the JSON report of schema:breaking on it, each a file its reader takes', async ({
    onTestFinished,
  }) => {
    const gateways = [
      await metricsServer([
        ['ApiKey.name', 'web', 3],
        ['UserRole.ADMIN', 'admin-console', 1],
      ]),
      await metricsServer([['ApiKey.name', 'web', 2]]),
    ];
    onTestFinished(async () => {
      await Promise.all(gateways.map(closing));
    });
    const [scrapes] = printed('http://gateway-1:9464/metrics');
    const [report] = printed('--json --out report.json');
    expect([scrapes, report]).toEqual([expect.stringContaining('--out usage.json'), expect.stringContaining('--usage usage.json')]);
    const { runs, files } = await runDocumentedCommands(
      [scrapes!.replace('http://gateway-1:9464', urlOf(gateways[0]!)).replace('http://gateway-2:9464', urlOf(gateways[1]!)), report!],
      ['usage.json', 'report.json'],
    );
    expect(runs.map(({ code, stdout, stderr }) => ({ code, said: stdout.trim().split('\n').at(-1), stderr }))).toEqual([
      { code: 0, said: 'schema:usage: wrote usage.json: 2 coordinates, 2 clients.', stderr: '' },
      { code: 0, said: 'schema:breaking: wrote report.json: Passed: no breaking change.', stderr: '' },
    ]);
    expect(JSON.parse(files['usage.json']!)).toEqual({
      format: 'vms-gateway-field-usage',
      version: 1,
      coordinates: { 'ApiKey.name': { web: 5 }, 'UserRole.ADMIN': { 'admin-console': 1 } },
    });
    expect(JSON.parse(files['report.json']!)).toMatchObject({
      format: 'vms-gateway-schema-breaking',
      result: 'pass',
      base: 'schema.graphql',
      usage: { file: 'usage.json', minRequests: 1 },
      manifests: [{ file: 'examples/generated/persisted-documents.json', format: 'graphql-codegen-persisted-documents' }],
      breakingChanges: [],
    });
  });

  it('names the first line that is not JSON of a file redirected from npm, banner included', async ({ onTestFinished }) => {
    const gateway = await metricsServer([['ApiKey.name', 'web', 1]]);
    onTestFinished(() => closing(gateway));
    const redirected = join(app.path, 'redirected-usage.json');
    const [written] = (await runDocumentedCommands([`./run npm run schema:usage -- ${urlOf(gateway)}/metrics > ${redirected}`], [])).runs;
    expect(written!.code).toBe(0);
    const { code, stderr } = await breaking(['retired'], '--usage', redirected);
    expect({ code, stderr }).toEqual({
      code: 2,
      stderr: `schema:breaking: ${redirected}: not JSON, line 2: "> vms-graphql-gateway@${version} schema:usage" (npm's banner: write the file with --out).\n`,
    });
  });
});

describe("the example client's Apollo manifest", () => {
  it('is what Apollo’s generator writes for examples/operations now (npm run schema:write)', async () => {
    const examples = await appFolder();
    try {
      const operations = join(ROOT, 'examples/operations');
      for (const name of await readdir(operations)) {
        await examples.write(`examples/operations/${name}`, await readFile(join(operations, name), 'utf8'));
      }
      await examples.write(
        'persisted-query-manifest.config.cjs',
        await readFile(join(ROOT, 'persisted-query-manifest.config.cjs'), 'utf8'),
      );
      await mkdir(join(examples.path, 'examples/generated'));
      await execute(
        join(examples.path, 'node_modules/.bin/generate-persisted-query-manifest'),
        ['--config', 'persisted-query-manifest.config.cjs'],
        {
          cwd: examples.path,
        },
      );
      const written = await readFile(join(examples.path, 'examples/generated/persisted-query-manifest.json'), 'utf8');
      expect(written, 'examples/generated/persisted-query-manifest.json is stale: run `npm run schema:write`').toBe(
        await readFile(join(ROOT, 'examples/generated/persisted-query-manifest.json'), 'utf8'),
      );
    } finally {
      await examples.close();
    }
  });
});

describeWithPrometheus('schema:usage from Prometheus', () => {
  const registry = new Registry();
  const counter = new Counter({ ...FIELD_USAGE_METRIC, labelNames: [...FIELD_USAGE_METRIC.labelNames], registers: [registry] });
  let gateway: Server;

  beforeAll(async () => {
    // A /metrics whose counts grow with every scrape, as a gateway's do under traffic: `increase` needs two different samples.
    gateway = createServer(async (_request, response) => {
      counter.inc({ coordinate: 'ApiKey.name', client: 'web' }, 5);
      counter.inc({ coordinate: 'UserRole.ADMIN', client: 'admin-console' });
      response.setHeader('content-type', registry.contentType);
      response.end(await registry.metrics());
    });
    await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => gateway?.close(resolve));
  });

  it('reads the answer to the query docs/schema.md gives, once Prometheus has two scrapes', async ({ onTestFinished }) => {
    const address = gateway.address() as { port: number };
    // Started in the test, which startPrometheus's wait for it to be ready (expect.poll) needs.
    const prometheus = await startPrometheus({ job: 'gateway', targets: [`127.0.0.1:${address.port}`] });
    onTestFinished(() => prometheus.close());
    const [command] = printed('http://prometheus:9090/api/v1/query?');
    const query = /'http:\/\/prometheus:9090(\/api\/v1\/query\?query=[^']+)'/.exec(command!)![1]!;
    const url = `${prometheus.url}${query}`;
    const counted = async () => {
      const answer = (await (await fetch(url)).json()) as { data: { result: { value: [number, string] }[] } };
      return answer.data.result.filter((series) => Number(series.value[1]) > 0).length;
    };
    await expect.poll(counted, { timeout: 30_000, interval: 500 }).toBe(2);
    const { runs, files } = await runDocumentedCommands([command!.replace('http://prometheus:9090', prometheus.url)], ['usage.json']);
    expect({ code: runs[0]!.code, stderr: runs[0]!.stderr }).toEqual({ code: 0, stderr: '' });
    const { coordinates } = JSON.parse(files['usage.json']!) as { coordinates: Record<string, Record<string, number>> };
    expect(Object.entries(coordinates).map(([coordinate, clients]) => [coordinate, Object.keys(clients)])).toEqual([
      ['ApiKey.name', ['web']],
      ['UserRole.ADMIN', ['admin-console']],
    ]);
    // `increase` extrapolates, so the counts are whatever the scrapes' timing made of them; each is a whole number, at least 1.
    expect(
      Object.values(coordinates)
        .flatMap(Object.values)
        .every((count) => Number.isInteger(count) && count >= 1),
    ).toBe(true);
  });
});
