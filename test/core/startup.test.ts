import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { ENVIRONMENT_VARIABLES, loadSettings as loadConfig } from '../../src/config/load.js';
import { runDocumentedCommands } from '../support/documented-command.js';
import { freePort } from '../support/ports.js';

const root = new URL('../..', import.meta.url).pathname;

/** Runs `src/main.ts` as `npm start` would (through tsx, so no build is needed). */
function startMain(env: Record<string, string>, args: string[] = []) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, METRICS_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const waitFor = async (pattern: RegExp, timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const match = pattern.exec(output);
      if (match) return match;
      if (child.exitCode !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`"${pattern}" never appeared in:\n${output}`);
  };
  return { child, exited, waitFor, output: () => output };
}

let running: ChildProcess | undefined;
let squatter: Server | undefined;
afterEach(() => {
  running?.kill('SIGKILL');
  running = undefined;
  squatter?.close();
  squatter = undefined;
});

/** Listens on a free port of 127.0.0.1, as another process on the host would, and returns it. */
async function takenPort(): Promise<number> {
  const server = createServer();
  squatter = server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

describe('configuration', () => {
  it('has documented defaults', () => {
    expect(loadConfig({})).toMatchObject({
      port: 4000,
      // Outside production only this machine reaches the sandbox, which takes any token, and GraphiQL.
      host: '127.0.0.1',
      upstreamUrl: undefined,
      upstreamTimeoutMs: 10000,
      graphiql: true,
      production: false,
    });
  });

  it.each([
    [{ PORT: 'abc' }, 'Invalid configuration: PORT must be a port number from 0 to 65535.'],
    [{ PORT: '70000' }, 'Invalid configuration: PORT must be a port number from 0 to 65535.'],
    [
      { UPSTREAM_URL: 'ftp://files.example/v2' },
      'Invalid configuration: UPSTREAM_URL must be an http(s) URL whose path ends in /v2, without query or fragment.',
    ],
    [
      { UPSTREAM_URL: 'https://api.example.com/v1' },
      'Invalid configuration: UPSTREAM_URL must be an http(s) URL whose path ends in /v2, without query or fragment.',
    ],
    [{ UPSTREAM_TIMEOUT_MS: '0' }, 'Invalid configuration: UPSTREAM_TIMEOUT_MS must be a whole number of milliseconds from 1 to 600000.'],
  ])('refuses %j with one line naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('a bad value makes `npm start` print that one line and exit with status 1', async () => {
    const main = startMain({ PORT: 'not-a-port' });
    running = main.child;
    expect(await main.exited).toBe(1);
    expect(printed(main)).toEqual(['Invalid configuration: PORT must be a port number from 0 to 65535.']);
  });
});

/** The lines a process printed, Node's own warnings aside. */
const printed = (main: ReturnType<typeof startMain>) =>
  main
    .output()
    .trim()
    .split('\n')
    .filter((line) => !line.includes('ExperimentalWarning'));

/** Configurations a start refuses: what is wrong, the environment, and the one line the start prints. */
const MISTAKES: Array<[string, Record<string, string>, string]> = [
  [
    'production without UPSTREAM_URL',
    { NODE_ENV: 'production' },
    'Invalid configuration: UPSTREAM_URL must be set when SANDBOX is false, as it is by default with NODE_ENV=production; SANDBOX=true serves the demo sandbox, which takes any token.',
  ],
  [
    'an empty UPSTREAM_URL',
    { NODE_ENV: 'production', UPSTREAM_URL: '' },
    'Invalid configuration: UPSTREAM_URL must not be empty; unset it to take the default.',
  ],
  ['NODE_ENV=prod', { NODE_ENV: 'prod' }, 'Invalid configuration: NODE_ENV must be one of production, development, test.'],
  [
    'cleartext to another host in production',
    { NODE_ENV: 'production', UPSTREAM_URL: 'http://vms.internal/v2' },
    'Invalid configuration: UPSTREAM_URL must be https:// with NODE_ENV=production unless its host is loopback, or bearer tokens cross the network in clear; UPSTREAM_ALLOW_HTTP=true accepts it where a mesh encrypts the hop.',
  ],
  [
    'a password in UPSTREAM_URL',
    { UPSTREAM_URL: 'https://svc:hunter2@vms.example/v2' },
    'Invalid configuration: UPSTREAM_URL must not hold a user or password: the gateway sends each caller’s own bearer token.',
  ],
  [
    'an unreadable TRUSTED_DOCUMENTS manifest',
    { TRUSTED_DOCUMENTS: 'examples/no-such-manifest.json' },
    'The gateway could not start: TRUSTED_DOCUMENTS: cannot read examples/no-such-manifest.json (ENOENT).',
  ],
];

describe('operator mistakes stop start-up with exit status 1 and one line naming the variable', () => {
  it.for(MISTAKES)('%s', async ([, env, line]) => {
    const main = startMain({ PORT: '0', HOST: '127.0.0.1', ...env });
    running = main.child;
    expect(await main.exited).toBe(1);
    expect(printed(main)).toEqual([line]);
    expect(main.output()).not.toContain('hunter2');
  });

  it('production serves the sandbox only with SANDBOX=true, and says so at warn level', async () => {
    const main = startMain({ NODE_ENV: 'production', SANDBOX: 'true', PORT: '0', HOST: '127.0.0.1' });
    running = main.child;
    await main.waitFor(/accepts any bearer token/);
    const lines = printed(main).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map(({ level, msg }) => [level, msg])).toEqual([
      [30, 'GraphQL gateway listening'],
      [40, 'UPSTREAM_URL is unset: serving the embedded sandbox upstream in-process, with seeded demo data; it accepts any bearer token'],
    ]);
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(lines[0]).toMatchObject({ sandbox: true, graphiql: false, version, revision: 'unknown' });
  });
});

describe('a retired variable', () => {
  it('still set, is named in one warning and start-up goes on: what it configured holds without it', async () => {
    const main = startMain({ NODE_ENV: 'production', SANDBOX: 'true', PORT: '0', HOST: '127.0.0.1', CORS_ALLOWED_HEADERS: 'x-tenant-id' });
    running = main.child;
    await main.waitFor(/accepts any bearer token/);
    const lines = printed(main).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map(({ level, msg }) => [level, msg])).toEqual([
      [
        40,
        'CORS_ALLOWED_HEADERS is no longer read: a listed origin may send every request header its preflight asks for, so the headers it listed are allowed without it; unset it.',
      ],
      [30, 'GraphQL gateway listening'],
      [40, 'UPSTREAM_URL is unset: serving the embedded sandbox upstream in-process, with seeded demo data; it accepts any bearer token'],
    ]);
  });
});

describe('start-up with the embedded sandbox', () => {
  it('prints the GraphiQL address, a ready-to-paste header and the sandbox’s address that work, with GraphiQL served from local assets', async () => {
    // No HOST: outside production the gateway listens on loopback, and says so.
    const main = startMain({ PORT: '0', GATEWAY_REVISION: '4f1e2d3' });
    running = main.child;
    const [, address] = await main.waitFor(
      /^GraphQL gateway [\d.]+ \(revision 4f1e2d3\) listening on (http:\/\/127\.0\.0\.1:\d+\/graphql)/m,
    );
    const [, token] = await main.waitFor(/Authorization: Bearer ([\w.-]+)/);
    // Where the curl commands of GraphiQL's Upstream tab go: the sandbox answers them itself.
    const [, sandbox] = await main.waitFor(/^The sandbox upstream is at (http:\/\/127\.0\.0\.1:\d+\/v2), on this machine only: /m);
    const direct = await fetch(`${sandbox}/api_keys?limit=1`, { headers: { authorization: `Bearer ${token}` } });
    expect(await direct.json()).toMatchObject({ success: true, result: [{ id: 'ak_001', name: 'API key 1' }] });
    expect(main.output()).toContain('; HOST=127.0.0.1 only; set HOST=0.0.0.0 to listen on every interface.');
    expect(main.output()).toContain(
      'serving the embedded sandbox upstream in-process, with seeded demo data; it accepts any bearer token.',
    );

    const page = await fetch(address!, { headers: { accept: 'text/html' } });
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain('<title>Video Management GraphQL</title>');
    expect(html).not.toMatch(/<(script|link)[^>]+(src|href)=["']?https?:/);
    expect(html.length).toBeLessThan(4096);

    const answer = await fetch(address!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: '{ apiKeys(first: 1) { nodes { id name } } }' }),
    });
    // Outside production every answer tells what it cost (COST_SHOWN=always).
    expect(await answer.json()).toEqual({
      data: { apiKeys: { nodes: [{ id: 'ak_001', name: 'API key 1' }] } },
      extensions: { cost: { estimatedCalls: 1, actualCalls: 1 } },
    });
  });
});

describe('start-up with UPSTREAM_URL', () => {
  it('puts the upstream’s address neither in its output nor in GraphiQL’s page', async () => {
    // Nothing listens there: the gateway calls its upstream only to answer an operation.
    const port = await freePort();
    const main = startMain({ PORT: '0', UPSTREAM_URL: `http://127.0.0.1:${port}/v2` });
    running = main.child;
    const [, address] = await main.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+\/graphql) \(open it in a browser for GraphiQL\)/);
    await main.waitFor(/^Forwarding to the upstream set in UPSTREAM_URL\.$/m);
    const page = await (await fetch(address!, { headers: { accept: 'text/html' } })).text();
    expect(page).toContain('<script type="application/json" id="graphiql-options">');
    expect([main.output().includes(String(port)), page.includes(String(port))]).toEqual([false, false]);
  });
});

describe('start-up with TRUSTED_DOCUMENTS', () => {
  it('says GraphiQL is not served, and why, and serves neither its page nor its files', async () => {
    const main = startMain({ PORT: '0', TRUSTED_DOCUMENTS: 'examples/generated/persisted-documents.json' });
    running = main.child;
    const [, address] = await main.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+\/graphql);/);
    await main.waitFor(/Send this header/);
    expect(main.output()).not.toContain('open it in a browser for GraphiQL');
    expect(main.output()).toContain(
      'GraphiQL is not served: TRUSTED_DOCUMENTS is set, so only the manifests’ documents run, sent by documentId, and GraphiQL sends query text.',
    );
    const page = await fetch(address!, { headers: { accept: 'text/html,*/*;q=0.8' } });
    expect([page.status, page.headers.get('content-type')]).toEqual([403, 'application/json; charset=utf-8']);
    expect((await fetch(address!.replace(/\/graphql$/, '/graphiql/graphiql.css'))).status).toBe(404);
  });
});

describe('an address that cannot be had stops start-up with exit status 1 and one line naming the setting', () => {
  /** The one line of a gateway that found its port taken. */
  const inUse = (variable: string, port: number) =>
    `The gateway could not start: ${variable}=${port}: 127.0.0.1:${port} is already in use; set ${variable} to a free port.`;

  it.for(['PORT', 'METRICS_PORT'])('%s already in use, as by a second gateway on the host', async (variable) => {
    const port = await takenPort();
    const main = startMain({ PORT: '0', HOST: '127.0.0.1', [variable]: String(port) });
    running = main.child;
    expect(await main.exited).toBe(1);
    expect(printed(main)).toEqual([inUse(variable, port)]);
  });

  it('METRICS_PORT already in use under WORKERS=2: the worker says so, and the primary stops', async () => {
    const port = await takenPort();
    const main = startMain({
      PORT: '0',
      METRICS_PORT: String(port),
      HOST: '127.0.0.1',
      WORKERS: '2',
      NODE_ENV: 'production',
      SANDBOX: 'true',
    });
    running = main.child;
    expect(await main.exited).toBe(1);
    expect(printed(main)).toContain(inUse('METRICS_PORT', port));
    expect(main.output()).toContain('a worker exited before it could listen; stopping');
  });

  it('HOST that is not an address of this machine', async () => {
    // 192.0.2.1 is TEST-NET-1 (RFC 5737): never assigned to a machine.
    const main = startMain({ PORT: '0', HOST: '192.0.2.1' });
    running = main.child;
    expect(await main.exited).toBe(1);
    expect(printed(main)).toEqual([
      'The gateway could not start: HOST=192.0.2.1: 192.0.2.1:0 is not an address of this machine; set HOST to one of its addresses (0.0.0.0 for all).',
    ]);
  });
});

describe('the command line', () => {
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

  it('--version prints the version of package.json', async () => {
    const main = startMain({}, ['--version']);
    running = main.child;
    expect(await main.exited).toBe(0);
    expect(printed(main)).toEqual([version]);
  });

  it('--help prints the commands and where the settings are documented, a file that exists', async () => {
    const main = startMain({}, ['--help']);
    running = main.child;
    expect(await main.exited).toBe(0);
    const help = main.output();
    for (const option of ['--check-config', '--version', '--help']) expect(help).toMatch(new RegExp(`^  ${option} `, 'm'));
    expect(help).toContain(`vms-graphql-gateway ${version}:`);
    for (const [, doc] of help.matchAll(/(docs\/[\w-]+\.md)/g)) expect(existsSync(`${root}${doc}`), doc).toBe(true);
    expect(help).toContain('docs/configuration.md');
  });

  it('./run --help and ./run --version answer as docs/operations.md says, before any Node is fetched', async () => {
    const operations = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    const commands = ['./run --help', './run --version'];
    for (const command of commands) expect(operations).toContain(`| \`${command}\` |`);
    const { runs } = await runDocumentedCommands(commands, []);
    // The Node ./run takes when the one on PATH is the version .node-version names, as the one running this test is.
    const node = (await promisify(execFile)('sh', ['-c', 'command -v node'])).stdout.trim();
    expect(runs[1]).toEqual({ code: 0, stderr: '', stdout: `vms-graphql-gateway ${version}\nNode ${process.version} (${node})\n` });
    const [help] = runs;
    expect({ code: help!.code, stderr: help!.stderr }).toEqual({ code: 0, stderr: '' });
    expect(help!.stdout).toMatch(/^Runs a command with the Node this project supports/);
    for (const command of ['./run start', './run test', './run <command>', ...commands])
      expect(help!.stdout).toMatch(new RegExp(`^  ${command.replace('.', '\\.')} `, 'm'));
  });

  it('refuses an argument it does not take, with status 1', async () => {
    const main = startMain({}, ['--chek-config']);
    running = main.child;
    expect(await main.exited).toBe(1);
    expect(printed(main)).toEqual(['Unknown arguments: --chek-config. Try --help.']);
  });
});

describe('--check-config', () => {
  it.for(MISTAKES)('refuses %s with the start’s line and status', async ([, env, line]) => {
    const main = startMain({ PORT: '0', HOST: '127.0.0.1', ...env }, ['--check-config']);
    running = main.child;
    expect(await main.exited).toBe(1);
    expect(printed(main)).toEqual([line]);
  });

  it('passes a configuration a start takes, and listens on nothing: its port may be taken', async () => {
    const [port, metricsPort] = [await takenPort(), await freePort()];
    const env = { PORT: String(port), METRICS_PORT: String(metricsPort), HOST: '127.0.0.1', CORS_ALLOWED_HEADERS: 'x-tenant-id' };
    const check = startMain(env, ['--check-config']);
    running = check.child;
    expect(await check.exited).toBe(0);
    // The retired variable's warning in plain text, as everything --check-config prints; then the verdict.
    expect(printed(check).slice(0, 2)).toEqual([
      'CORS_ALLOWED_HEADERS is no longer read: a listed origin may send every request header its preflight asks for, so the headers it listed are allowed without it; unset it.',
      'The configuration is valid: the gateway would start with it.',
    ]);
    // The same environment, started: the port is taken, which only listening finds.
    const main = startMain(env);
    running = main.child;
    expect(await main.exited).toBe(1);
    expect(printed(main).at(-1)).toBe(
      `The gateway could not start: PORT=${port}: 127.0.0.1:${port} is already in use; set PORT to a free port.`,
    );
  });

  it('refuses with a line for every bad setting, not only the first, and never shows a password', async () => {
    const check = startMain(
      { PORT: 'abc', NODE_ENV: 'prod', UPSTREAM_TIMEOUT_MS: '0', REDIS_URL: 'redis://:hunter2@cache:6379/x', GRAPHIQL: '' },
      ['--check-config'],
    );
    running = check.child;
    expect(await check.exited).toBe(1);
    expect(printed(check)).toEqual([
      'Invalid configuration: NODE_ENV must be one of production, development, test.',
      'Invalid configuration: PORT must be a port number from 0 to 65535.',
      'Invalid configuration: UPSTREAM_TIMEOUT_MS must be a whole number of milliseconds from 1 to 600000.',
      'Invalid configuration: GRAPHIQL must not be empty; unset it to take the default.',
      'Invalid configuration: REDIS_URL must be a redis:// or rediss:// URL with a host, and at most a database number as its path.',
    ]);
    expect(check.output()).not.toContain('hunter2');
  });

  it('refuses FORWARD_HEADERS that would send upstream what the gateway owns, naming each entry', async () => {
    const renames = ['content-encoding', 'accept-encoding', 'x-http-method-override', 'x-forwarded-for', 'baggage', 'x-debug-upstream'];
    const check = startMain(
      {
        FORWARD_HEADERS: [
          'accept-language',
          'x-a=y=z',
          ...renames.map((name, index) => `x-${index}=${name}`),
          'tracestate=x-tracestate',
        ].join(', '),
      },
      ['--check-config'],
    );
    running = check.child;
    expect(await check.exited).toBe(1);
    expect(printed(check)).toEqual([
      'Invalid configuration: FORWARD_HEADERS may not name "y=z", which is not a header name.',
      'Invalid configuration: FORWARD_HEADERS may not name content-encoding, which describes the body the gateway sends.',
      'Invalid configuration: FORWARD_HEADERS may not name accept-encoding, which says what answers the gateway can read.',
      'Invalid configuration: FORWARD_HEADERS may not name x-http-method-override, which would change the method of the call.',
      'Invalid configuration: FORWARD_HEADERS may not name x-forwarded-for, which would tell the upstream a client address the gateway never checked.',
      'Invalid configuration: FORWARD_HEADERS may not name baggage, a trace header: only the gateway’s own trace context goes upstream.',
      'Invalid configuration: FORWARD_HEADERS may not name x-debug-upstream, which carries DEBUG_UPSTREAM_KEY.',
      'Invalid configuration: FORWARD_HEADERS may not name tracestate, a trace header: only the gateway’s own trace context goes upstream.',
    ]);
  });

  it('refuses with a line for every combination the settings break', async () => {
    const check = startMain({ PORT: '4000', METRICS_PORT: '4000', CORS_ALLOW_CREDENTIALS: 'true', CORS_ORIGINS: '*' }, ['--check-config']);
    running = check.child;
    expect(await check.exited).toBe(1);
    expect(printed(check)).toEqual([
      'Invalid configuration: CORS_ALLOW_CREDENTIALS=true needs CORS_ORIGINS to list origins: with `*` (the default outside production) any site could read answers made with its visitors’ credentials.',
      'Invalid configuration: METRICS_PORT must differ from PORT: /metrics is kept off the public port.',
    ]);
  });

  it('prints every setting it would start with, as set or by default, and no secret', async () => {
    const check = startMain(
      {
        PORT: '0',
        HOST: '127.0.0.1',
        FORWARD_HEADERS: 'accept-language, x-tenant-id=x-vms-tenant',
        DEBUG_UPSTREAM_KEY: 'hunter2-debug-key-of-the-gateway',
        REDIS_URL: 'rediss://svc:hunter2@cache.internal:6380/2',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel:hunter2@collector.example:4318',
      },
      ['--check-config'],
    );
    running = check.child;
    expect(await check.exited).toBe(0);
    const [verdict, ...settings] = printed(check);
    expect(verdict).toBe('The configuration is valid: the gateway would start with it.');
    expect(settings.map((line) => /^ {2}([A-Z_]+)=/.exec(line)?.[1])).toEqual(ENVIRONMENT_VARIABLES);
    expect(settings).toEqual(
      expect.arrayContaining([
        '  NODE_ENV=unset (default)',
        '  PORT=0',
        '  METRICS_PORT=0',
        '  UPSTREAM_TIMEOUT_MS=10000 (default)',
        '  CORS_ORIGINS=* (default)',
        '  FORWARD_HEADERS=accept-language, x-tenant-id=x-vms-tenant',
        '  RETURN_HEADERS=unset (default)',
        '  DEBUG_UPSTREAM_KEY=[redacted]',
        '  REDIS_URL=rediss://[redacted]@cache.internal:6380/2',
        '  REDIS_PASSWORD=unset (default)',
        '  OTEL_EXPORTER_OTLP_ENDPOINT=https://[redacted]@collector.example:4318/',
      ]),
    );
    expect(check.output()).not.toContain('hunter2');
  });

  it('in production, reads the manifests of TRUSTED_DOCUMENTS as a start does, and passes', async () => {
    const main = startMain(
      {
        NODE_ENV: 'production',
        UPSTREAM_URL: 'https://vms.example.com/v2',
        TRUSTED_DOCUMENTS: 'examples/generated/persisted-documents.json',
      },
      ['--check-config'],
    );
    running = main.child;
    expect(await main.exited).toBe(0);
    expect(printed(main)[0]).toBe('The configuration is valid: the gateway would start with it.');
    expect(printed(main)).toContain('  TRUSTED_DOCUMENTS=examples/generated/persisted-documents.json');
  });
});
