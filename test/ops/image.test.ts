import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { AUTH } from '../support/auth.js';
import { type ChildGateway, runContainer } from '../support/child-gateway.js';
import { sharedUpstream, test } from '../support/fixtures.js';
import { describeWithImage, imageUnderTest, podman } from '../support/image.js';
import { configMap, container, pod } from '../support/manifests.js';
import { freePort } from '../support/ports.js';
import { apiKeyPage, apiKeyRecord, apiKeys } from '../support/records.js';

/**
 * The image scripts/build-image.sh builds (GATEWAY_IMAGE), run as deploy/ runs it: the ConfigMap's
 * environment, the Deployment's securityContext and limits, its probes, preStop hook and grace period.
 */

const NAME = `vms-gateway-image-test-${process.pid}`;
const podSecurity = pod.spec.securityContext;
const { securityContext, resources } = container;
const preStop: string[] = container.lifecycle.preStop.exec.command;

/** Tries to write the gateway's code, and a file beside it, printing each path and how it went. */
const WRITE_CODE = `for (const path of ['/app/dist/main.js', '/app/node_modules/graphql/package.json', '/app/new.js', '/tmp/new.js'])
  try { require('node:fs').writeFileSync(path, ''); console.log(path, 'written'); } catch (error) { console.log(path, error.code); }`;

/** A Kubernetes quantity as podman reads it: "768Mi" is 768m, "1" or "500m" CPUs 1 or 0.5. */
function quantity(value: string, unit: 'memory' | 'cpu'): string {
  const [, amount, suffix] = /^(\d+)(Mi|Gi|m)?$/.exec(value) ?? [];
  if (unit === 'memory' && suffix === 'Mi') return `${amount}m`;
  if (unit === 'memory' && suffix === 'Gi') return `${amount}g`;
  if (unit === 'cpu' && suffix === undefined && amount) return amount;
  if (unit === 'cpu' && suffix === 'm') return String(Number(amount) / 1000);
  throw new Error(`deploy/deployment.yaml: ${unit} ${value} is a quantity the image test does not translate for podman yet`);
}

/**
 * What deploy/deployment.yaml asks of the container, as podman run's options. The test of the
 * securityContext below fails on a field not translated here.
 */
const asTheDeploymentRunsIt = [
  `--user=${podSecurity.runAsUser}:${podSecurity.runAsGroup}`,
  // Kubernetes mounts no tmpfs on /tmp and /run of a read-only root, as podman would by default.
  ...(securityContext.readOnlyRootFilesystem ? ['--read-only', '--read-only-tmpfs=false'] : []),
  ...securityContext.capabilities.drop.map((capability: string) => `--cap-drop=${capability}`),
  ...(securityContext.allowPrivilegeEscalation === false ? ['--security-opt=no-new-privileges'] : []),
  // seccompProfile RuntimeDefault: podman's default profile, which needs no option.
  `--memory=${quantity(resources.limits.memory, 'memory')}`,
  `--cpus=${quantity(resources.limits.cpu, 'cpu')}`,
  // Kubernetes ignores the image's HEALTHCHECK and calls the probes instead, as the tests below do.
  '--no-healthcheck',
];

const envOptions = (env: Record<string, string>) => Object.entries(env).flatMap(([name, value]) => ['--env', `${name}=${value}`]);

const it = test
  .extend(
    'upstream',
    { scope: 'file' },
    sharedUpstream((request) => {
      const page = Number(request.query.cursor ?? 0);
      return { body: apiKeyPage(apiKeys(25, page * 25 + 1), page < 1 ? page + 1 : null) };
    }),
  )
  // One container for the file, as one pod lives: the last test stops it.
  .extend('gateway', { scope: 'file' }, async ({ upstream }, { onCleanup }): Promise<ChildGateway> => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const gateway = await runContainer(
      [
        '--rm',
        `--name=${NAME}`,
        // The container shares the host's network, to reach the fake upstream on loopback; so it
        // listens on loopback too, on free ports, where the pod's own address would be 0.0.0.0.
        '--network=host',
        ...asTheDeploymentRunsIt,
        ...envOptions({
          ...configMap.data,
          HOST: '127.0.0.1',
          PORT: String(port),
          METRICS_PORT: String(metricsPort),
          UPSTREAM_URL: upstream.url,
        }),
        imageUnderTest(),
      ],
      metricsPort,
    );
    onCleanup(async () => {
      if (gateway.child.exitCode === null) await podman('rm', '--force', '--time=0', NAME);
      await gateway.exited;
    });
    return gateway;
  });
const url = (gateway: ChildGateway, probe: { httpGet: { path: string; port: string } }) =>
  `http://127.0.0.1:${{ http: gateway.port, metrics: gateway.metricsPort }[probe.httpGet.port]}${probe.httpGet.path}`;

describeWithImage('the image, run as deploy/ runs it', () => {
  it('answers a paged query, the probes and the metrics port', async ({ gateway, upstream }) => {
    const response = await fetch(`http://127.0.0.1:${gateway.port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...AUTH },
      body: JSON.stringify({ query: 'query Keys { apiKeys(first: 50) { nodes { id } pageInfo { hasNextPage } } }' }),
    });
    const { data } = (await response.json()) as { data: { apiKeys: { nodes: Array<{ id: string }>; pageInfo: unknown } } };
    expect([response.status, data.apiKeys.nodes.length, data.apiKeys.nodes[49], data.apiKeys.pageInfo]).toEqual([
      200,
      50,
      { id: 'k50' },
      { hasNextPage: false },
    ]);
    expect(upstream.requests.map((r) => `${r.method} ${r.path} ${JSON.stringify(r.query)} ${r.headers.authorization}`)).toEqual([
      `GET /v2/api_keys {"limit":"25"} ${AUTH.authorization}`,
      `GET /v2/api_keys {"limit":"25","cursor":"1"} ${AUTH.authorization}`,
    ]);

    const probes = [container.startupProbe, container.livenessProbe, container.readinessProbe];
    const answers = await Promise.all(probes.map(async (probe) => (await fetch(url(gateway, probe))).status));
    expect(answers).toEqual([200, 200, 200]);
    const scrape = { httpGet: { port: 'metrics', path: pod.metadata.annotations['prometheus.io/path'] } };
    const metrics = await (await fetch(url(gateway, scrape))).text();
    expect(metrics.split('\n').filter((line) => line.startsWith('gateway_upstream_requests_total'))).toEqual([
      'gateway_upstream_requests_total{method="GET",route="/api_keys",status_class="2xx"} 2',
    ]);
    // The build says what it is: the version of package.json, the commit scripts/build-image.sh built from.
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(metrics).toMatch(
      new RegExp(
        `^gateway_build_info\\{version="${version.replaceAll('.', '\\.')}",revision="[0-9a-f]{40}(-dirty)?",node="v[\\d.]+"\\} 1$`,
        'm',
      ),
    );
  });

  it('runs with the Deployment’s securityContext: uid and gid 1000, no capability, no privilege gain, seccomp, a read-only root', async ({
    gateway,
  }) => {
    // Every field is translated above; a new one fails here until it is.
    expect([Object.keys(podSecurity).sort(), Object.keys(securityContext).sort()]).toEqual([
      ['runAsGroup', 'runAsNonRoot', 'runAsUser', 'seccompProfile'],
      ['allowPrivilegeEscalation', 'capabilities', 'readOnlyRootFilesystem'],
    ]);
    expect([podSecurity.runAsNonRoot, podSecurity.seccompProfile, securityContext.capabilities]).toEqual([
      true,
      { type: 'RuntimeDefault' },
      { drop: ['ALL'] },
    ]);
    // The gateway itself is PID 1, the image's command with no shell or init before it.
    expect((await podman('exec', NAME, 'cat', '/proc/1/cmdline')).stdout.split('\0')).toEqual([
      'node',
      '--max-semi-space-size=64',
      'dist/main.js',
      '',
    ]);
    const status = await podman('exec', NAME, 'cat', '/proc/1/status');
    expect(status.stdout.split('\n').filter((line) => /^(Uid|Gid|CapEff|CapBnd|NoNewPrivs|Seccomp):/.test(line))).toEqual([
      'Uid:\t1000\t1000\t1000\t1000',
      'Gid:\t1000\t1000\t1000\t1000',
      'CapEff:\t0000000000000000',
      'CapBnd:\t0000000000000000',
      'NoNewPrivs:\t1',
      'Seccomp:\t2',
    ]);
    expect(gateway.child.exitCode).toBe(null);
  });

  it('cannot write its code: the root is read-only, and the code is root’s even where the root is not', async ({ gateway }) => {
    // As the process's user, in the running container.
    expect(await podman('exec', NAME, 'node', '-e', WRITE_CODE)).toEqual({
      code: 0,
      stdout: '/app/dist/main.js EROFS\n/app/node_modules/graphql/package.json EROFS\n/app/new.js EROFS\n/tmp/new.js EROFS\n',
      stderr: '',
    });
    // And where someone runs the image with a writable root (docker run's default): only /tmp is the user's.
    expect(
      await podman('run', '--rm', '--network=none', '--no-healthcheck', '--user=1000:1000', imageUnderTest(), 'node', '-e', WRITE_CODE),
    ).toEqual({
      code: 0,
      stdout: '/app/dist/main.js EACCES\n/app/node_modules/graphql/package.json EACCES\n/app/new.js EACCES\n/tmp/new.js written\n',
      stderr: '',
    });
    expect(gateway.child.exitCode).toBe(null);
  });

  it('stops as a pod is deleted: the preStop hook, then SIGTERM; the request in flight is answered, exit 0 within the grace period, JSON logs only', async ({
    gateway,
    upstream,
  }) => {
    // The hook runs in the container while the pod still serves.
    const hook = podman('exec', NAME, ...preStop);
    expect((await fetch(url(gateway, container.livenessProbe))).status).toBe(200);
    expect(await hook).toEqual({ code: 0, stdout: '', stderr: '' });

    const received = new Promise<void>((resolve) =>
      upstream.answer(() => {
        resolve();
        return { delayMs: 1000, body: apiKeyPage([apiKeyRecord(1)]) };
      }),
    );
    const answer = fetch(`http://127.0.0.1:${gateway.port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...AUTH },
      body: JSON.stringify({ query: 'query Keys { apiKeys(first: 1) { nodes { id } } }' }),
    });
    await received;
    // podman stop sends the image's STOPSIGNAL and SIGKILL once the rest of the grace period is over,
    // as the kubelet does after the hook: a gateway still running then would exit 137.
    const [sleep, seconds] = preStop;
    expect(sleep).toBe('sleep');
    const stop = podman('stop', `--time=${pod.spec.terminationGracePeriodSeconds - Number(seconds)}`, NAME);

    const response = await answer;
    expect([response.status, response.headers.get('connection'), await response.json()]).toEqual([
      200,
      'close',
      { data: { apiKeys: { nodes: [{ id: 'k1' }] } } },
    ]);
    expect(await stop).toEqual({ code: 0, stdout: `${NAME}\n`, stderr: '' });
    expect(await gateway.exited).toEqual({ code: 0, signal: null });

    // Everything the container wrote, on stdout and stderr, from start to stop, was JSON lines.
    expect(gateway.other).toEqual([]);
    expect(gateway.lines.map((line) => line.msg).slice(-3)).toEqual([
      'shutting down: no new connections, finishing requests in flight',
      'graphql request',
      'stopped',
    ]);
    expect(gateway.lines.at(-3)).toMatchObject({ level: 30, inFlight: 1, timeoutMs: Number(configMap.data!.SHUTDOWN_TIMEOUT_MS) });
  });

  it('refuses to start in production without UPSTREAM_URL, at once and saying why', async () => {
    const { UPSTREAM_URL, ...withoutUpstream } = configMap.data!;
    expect(UPSTREAM_URL).toBeDefined();
    expect(
      await podman('run', '--rm', '--network=none', ...asTheDeploymentRunsIt, ...envOptions(withoutUpstream), imageUnderTest()),
    ).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'Invalid configuration: UPSTREAM_URL must be set when SANDBOX is false, as it is by default with NODE_ENV=production; SANDBOX=true serves the demo sandbox, which takes any token.\n',
    });
  });
});
