import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PrometheusRule, ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Service } from 'kubernetes-models/v1';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { ENVIRONMENT_VARIABLES, loadSettings as loadConfig } from '../../src/config/load.js';
import { VERSION } from '../../src/server/build-info.js';
import { gatewayOverUpstream } from '../support/fixtures.js';
import {
  configMap,
  container,
  deployment,
  GATEWAY_LABEL,
  type K8sObject,
  MANIFEST_FILES,
  metricsService,
  objects,
  objectsOf,
  only,
  PROMETHEUS_JOB,
  pod,
  portNamed,
  service,
} from '../support/manifests.js';
import { sectionOf } from '../support/markdown.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OPERATIONS = readFileSync(`${ROOT}docs/operations.md`, 'utf8');

/**
 * The models of the Kubernetes API objects deploy/ holds, by apiVersion and kind: kubernetes-models,
 * generated from the API's OpenAPI schemas, with a JSON-schema validator and a TypeScript interface each.
 */
const MODELS = {
  'v1 ConfigMap': [ConfigMap, 'kubernetes-models/v1', 'IConfigMap'],
  'apps/v1 Deployment': [Deployment, 'kubernetes-models/apps/v1', 'IDeployment'],
  'v1 Service': [Service, 'kubernetes-models/v1', 'IService'],
  'autoscaling/v2 HorizontalPodAutoscaler': [HorizontalPodAutoscaler, 'kubernetes-models/autoscaling/v2', 'IHorizontalPodAutoscaler'],
  'policy/v1 PodDisruptionBudget': [PodDisruptionBudget, 'kubernetes-models/policy/v1', 'IPodDisruptionBudget'],
  'networking.k8s.io/v1 NetworkPolicy': [NetworkPolicy, 'kubernetes-models/networking.k8s.io/v1', 'INetworkPolicy'],
  // Custom resources of the Prometheus operator: models generated from the operator's own CRD schemas.
  'monitoring.coreos.com/v1 ServiceMonitor': [
    ServiceMonitor,
    '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1',
    'IServiceMonitor',
  ],
  'monitoring.coreos.com/v1 PrometheusRule': [
    PrometheusRule,
    '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1',
    'IPrometheusRule',
  ],
} as const;
const modelOf = (object: { apiVersion: string; kind: string }) => MODELS[`${object.apiVersion} ${object.kind}` as keyof typeof MODELS];

/**
 * What TypeScript says of the objects as values of their models' interfaces. The schemas accept a
 * field they do not know, as the API server does not (kubectl apply validates strictly): a
 * misspelt `readOnlyRootFilesystem` would pass them and fail the rollout. TypeScript's check of
 * excess properties finds it, and names it.
 */
function typeErrors(): string[] {
  // One module per object, beside the manifests, each holding the object as a literal of its type.
  const sources = new Map(
    objects.map((object, index) => {
      const [, module, type] = modelOf(object);
      return [
        `${ROOT}deploy/${index}-${object.kind}.ts`,
        `import type { ${type} } from '${module}';\nexport const object: ${type} = ${JSON.stringify(object)};`,
      ];
    }),
  );
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts'],
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, ...rest) => {
    const source = sources.get(name);
    return source === undefined ? getSourceFile(name, ...rest) : ts.createSourceFile(name, source, ts.ScriptTarget.ES2022);
  };
  host.fileExists = (name) => sources.has(name) || fileExists(name);
  host.readFile = (name) => sources.get(name) ?? readFile(name);
  return ts
    .getPreEmitDiagnostics(ts.createProgram([...sources.keys()], options, host))
    .map(
      (diagnostic) => `${diagnostic.file?.fileName.slice(ROOT.length)}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`,
    );
}

const probePort = (probe: { httpGet: { port: string | number } }) =>
  typeof probe.httpGet.port === 'number' ? probe.httpGet.port : portNamed(probe.httpGet.port);

describe('deploy/ manifests', () => {
  it('holds exactly the objects an operator needs', () => {
    expect(objects.map((object) => object.kind).sort()).toEqual([
      'ConfigMap',
      'Deployment',
      'HorizontalPodAutoscaler',
      'NetworkPolicy',
      'PodDisruptionBudget',
      'PrometheusRule',
      'Service',
      'Service',
      'ServiceMonitor',
    ]);
  });

  it('kustomizes every Kubernetes object but the Prometheus operator’s, which are applied where its CRDs are', () => {
    const kustomized = parseAllDocuments(readFileSync(`${ROOT}deploy/kustomization.yaml`, 'utf8'))[0]!.toJS() as { resources: string[] };
    const operatorsOnly = (file: string) => objectsOf(file).every((object) => object.apiVersion.startsWith('monitoring.coreos.com/'));
    expect(kustomized.resources.sort()).toEqual(MANIFEST_FILES.filter((file) => !operatorsOnly(file)).sort());
    expect(MANIFEST_FILES.filter(operatorsOnly)).toEqual(['prometheus-rules.yaml', 'servicemonitor.yaml']);
  });

  it('are objects of the Kubernetes API, valid by its schemas, with no field it does not know', () => {
    const invalid = objects.flatMap((object) => {
      const model = modelOf(object);
      if (!model) return [`${object.apiVersion} ${object.kind}: no model in MODELS`];
      try {
        new model[0](object as never).validate();
        return [];
      } catch (error) {
        return [`${object.kind}: ${(error as Error).message}`];
      }
    });
    expect(invalid).toEqual([]);
    expect(typeErrors()).toEqual([]);
  });

  it('configures only variables the gateway reads, with values it accepts', () => {
    const names = [...Object.keys(configMap.data!), ...(container.env ?? []).map((variable: { name: string }) => variable.name)];
    expect(names.filter((name) => !ENVIRONMENT_VARIABLES.includes(name))).toEqual([]);
    const config = loadConfig(configMap.data);
    expect([config.production, config.upstreamUrl?.href, config.graphiql, config.workers]).toEqual([
      true,
      'https://vms.example.com/v2',
      false,
      1,
    ]);
    expect(container.envFrom).toEqual([{ configMapRef: { name: configMap.metadata.name } }]);
  });

  it('exposes the ports the configuration makes the gateway listen on: the main one to the probes and the Service, the metrics one to Prometheus', () => {
    const { port, metricsPort } = loadConfig(configMap.data);
    expect(portNamed('http')).toBe(port);
    expect(portNamed('metrics')).toBe(metricsPort);
    expect([probePort(container.startupProbe), probePort(container.livenessProbe), probePort(container.readinessProbe)]).toEqual([
      port,
      port,
      port,
    ]);
    expect(Number(pod.metadata.annotations['prometheus.io/port'])).toBe(metricsPort);
    const targetPorts = (service: K8sObject) => service.spec.ports.map((p: { targetPort: string }) => portNamed(p.targetPort));
    expect(targetPorts(service)).toEqual([port]);
    expect(targetPorts(metricsService)).toEqual([metricsPort]);
    expect(metricsService.spec.ports[0].port).toBe(metricsPort);
    expect([service.spec.selector, metricsService.spec.selector]).toEqual([pod.metadata.labels, pod.metadata.labels]);
  });

  it('has Prometheus scrape the metrics Service alone, on the path and port the pods serve /metrics on, as job vms-graphql-gateway, with the pod label the rules select', () => {
    const monitor = only('ServiceMonitor');
    const selects = (object: K8sObject) =>
      Object.entries(monitor.spec.selector.matchLabels).every(([label, value]) => object.metadata.labels?.[label] === value);
    expect(objects.filter((object) => object.kind === 'Service' && selects(object))).toEqual([metricsService]);
    expect(monitor.spec.endpoints.map((endpoint: { port: string; path: string }) => [endpoint.port, endpoint.path])).toEqual([
      [metricsService.spec.ports[0].name, pod.metadata.annotations['prometheus.io/path']],
    ]);
    expect(metricsService.metadata.labels?.[monitor.spec.jobLabel]).toBe(PROMETHEUS_JOB);
    // Every series carries the pod label the alert rules and the dashboard select, whichever job scrapes it.
    expect(monitor.spec.podTargetLabels).toEqual([GATEWAY_LABEL]);
    expect(pod.metadata.labels[GATEWAY_LABEL]).toBe(deployment.metadata.name);
  });

  it('lets in the GraphQL port from the ingress controller’s namespace only and the metrics port from the monitoring namespace only; lets out the upstream, Redis and DNS only', () => {
    const policy = only('NetworkPolicy');
    const { port, metricsPort, upstreamUrl, trustProxyHops } = loadConfig(configMap.data);
    expect(policy.spec.podSelector.matchLabels).toEqual(pod.metadata.labels);
    expect(policy.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    type Rule = { from?: unknown[]; to?: unknown[]; ports: Array<{ port: string | number; protocol: string }> };
    const ports = (rule: Rule) => rule.ports.map((p) => `${typeof p.port === 'string' ? portNamed(p.port) : p.port}/${p.protocol}`);
    expect(policy.spec.ingress.map((rule: Rule) => [ports(rule), rule.from])).toEqual([
      [[`${port}/TCP`], [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } }]],
      [[`${metricsPort}/TCP`], [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }]],
    ]);
    // X-Forwarded-For's last TRUST_PROXY_HOPS entries are believed: only the proxy may reach the port,
    // or a client that reached it directly would name its own address for the rate limit.
    expect(trustProxyHops).toBeGreaterThan(0);
    expect(policy.spec.ingress.filter((rule: Rule) => ports(rule).includes(`${port}/TCP`) && !rule.from?.length)).toEqual([]);
    // The upstream's port is UPSTREAM_URL's; Redis's, the default and that of the REDIS_URL the Deployment shows.
    const upstreamPort = Number(upstreamUrl!.port || (upstreamUrl!.protocol === 'https:' ? 443 : 80));
    const shownRedisPort = /--from-literal=url='rediss?:\/\/[^']*:(\d+)'/.exec(readFileSync(`${ROOT}deploy/deployment.yaml`, 'utf8'))?.[1];
    expect(policy.spec.egress.map(ports)).toEqual([[`${upstreamPort}/TCP`], ['6379/TCP', `${shownRedisPort}/TCP`], ['53/UDP', '53/TCP']]);
    expect(policy.spec.egress.at(-1).to).toEqual([
      {
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
        podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
      },
    ]);
  });

  it('is narrowed to another ingress controller’s and Prometheus’s namespaces by the overlay docs/operations.md shows', () => {
    const section = sectionOf(OPERATIONS, 'who-reaches-the-pods')!;
    const overlay = parse(/```yaml\n([\s\S]*?)```/.exec(section)![1]!) as {
      resources: string[];
      patches: Array<{ target: { kind: string; name: string }; patch: string }>;
    };
    const policy = only('NetworkPolicy');
    expect(overlay.resources).toEqual(['../deploy']);
    // The overlay's JSON patches, applied as kustomize applies them: each replaces the value at its path.
    const patched = structuredClone(policy) as Record<string, any>;
    for (const { target, patch } of overlay.patches) {
      expect([target.kind, target.name]).toEqual([policy.kind, policy.metadata.name]);
      for (const operation of parse(patch) as Array<{ op: string; path: string; value: unknown }>) {
        expect(operation.op).toBe('replace');
        const keys = operation.path.split('/').slice(1);
        const parent = keys.slice(0, -1).reduce((node, key) => node[key], patched);
        expect([operation.path, keys.at(-1)! in parent]).toEqual([operation.path, true]);
        parent[keys.at(-1)!] = operation.value;
      }
    }
    new NetworkPolicy(patched as never).validate();
    expect(patched.spec.ingress.map((rule: { from: unknown[] }) => rule.from)).toEqual([
      [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'traefik' } } }],
      [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'observability' } } }],
    ]);
  });

  it('runs the image of this version', () => {
    expect(container.image).toBe(`registry.example.com/vms-graphql-gateway:${VERSION}`);
  });

  it('lets requests in flight finish before the pod is killed', () => {
    const pause = Number(container.lifecycle.preStop.exec.command[1]);
    expect(container.lifecycle.preStop.exec.command[0]).toBe('sleep');
    expect(pause * 1000 + loadConfig(configMap.data).shutdownTimeoutMs).toBeLessThan(pod.spec.terminationGracePeriodSeconds * 1000);
  });

  it('bounds resources, runs unprivileged, and scales and drains safely', () => {
    expect(Object.keys(container.resources).sort()).toEqual(['limits', 'requests']);
    expect(Object.keys(container.resources.requests).sort()).toEqual(['cpu', 'memory']);
    expect(Object.keys(container.resources.limits).sort()).toEqual(['cpu', 'memory']);
    expect([pod.spec.securityContext.runAsNonRoot, container.securityContext.allowPrivilegeEscalation]).toEqual([true, false]);
    const hpa = only('HorizontalPodAutoscaler');
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name });
    const pdb = only('PodDisruptionBudget');
    expect(pdb.spec.selector.matchLabels).toEqual(pod.metadata.labels);
    expect(deployment.spec.selector.matchLabels).toEqual(pod.metadata.labels);
    expect(pdb.spec.minAvailable).toBeLessThan(hpa.spec.minReplicas);
  });

  it('leaves the number of pods to the HorizontalPodAutoscaler: a re-apply of the Deployment does not reset it', () => {
    // Kubernetes' advice with an HPA: a replicas field would set the count back at every kubectl apply -k deploy/.
    expect(Object.keys(deployment.spec)).not.toContain('replicas');
    expect(only('HorizontalPodAutoscaler').spec.scaleTargetRef.name).toBe(deployment.metadata.name);
  });
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync(`${ROOT}Dockerfile`, 'utf8');

  it('ships the Node LTS of .node-version, the one Node that package.json, ./run, CI and the README name', () => {
    const lts = readFileSync(`${ROOT}.node-version`, 'utf8').trim();
    expect(lts).toMatch(/^(24|26)\.\d+\.\d+$/);
    expect(dockerfile).toContain(`ARG NODE_IMAGE=node:${lts}-bookworm-slim`);
    const { engines, devEngines } = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8'));
    expect([engines.node, devEngines.runtime]).toEqual([`^${lts}`, { name: 'node', version: `^${lts}`, onFail: 'error' }]);
    // ./run brings that Node; CI runs the README's test command through it.
    expect(readFileSync(`${ROOT}run`, 'utf8')).toContain('wanted=$(cat .node-version)');
    expect(readFileSync(`${ROOT}.ci/run`, 'utf8')).toMatch(/^\.\/run test$/m);
    expect(readFileSync(`${ROOT}README.md`, 'utf8')).toContain(`The project runs on Node ${lts.split('.')[0]} (the version in`);
  });

  it('CI installs the Chromium the browser tests look for, by the same rule', () => {
    // The shell's default-value expansion, as .ci/run writes it.
    expect(readFileSync(`${ROOT}.ci/run`, 'utf8')).toContain(['"$', '{CHROMIUM_PATH:-/usr/bin/chromium}"'].join(''));
    expect(readFileSync(`${ROOT}test/support/browser.ts`, 'utf8')).toContain("process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'");
  });

  it('CI installs the Prometheus and promtool the dashboard and alert tests look for, by the same rule', () => {
    const ci = readFileSync(`${ROOT}.ci/run`, 'utf8');
    const support = readFileSync(`${ROOT}test/support/prometheus.ts`, 'utf8');
    for (const [variable, path] of [
      ['PROMETHEUS_PATH', '/usr/bin/prometheus'],
      ['PROMTOOL_PATH', '/usr/bin/promtool'],
    ]) {
      expect(ci).toContain(['"$', `{${variable}:-${path}}"`].join(''));
      expect(support).toContain(`process.env.${variable} ?? '${path}'`);
    }
    expect(ci).toContain('packages+=(prometheus)');
  });

  it('builds in stages, ships production dependencies only and runs as a non-root user', () => {
    expect(dockerfile.match(/^FROM /gm)?.length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toMatch(/^RUN npm ci --omit=dev /m);
    expect(dockerfile.match(/^USER (\S+)$/m)?.[1]).toBe('node');
    expect(dockerfile).toMatch(/^CMD \["node", "--max-semi-space-size=64", "dist\/main\.js"\]$/m);
  });

  it('sets only settings the gateway reads, each as the ConfigMap sets it, and the revision it was built from', () => {
    const variables = Object.fromEntries(
      [...dockerfile.matchAll(/^ENV (?:.*\\\n)*.*$/gm)].flatMap(([env]) =>
        [...env.matchAll(/(\w+)=(\S+)/g)].map(([, name, value]) => [name, value]),
      ),
    );
    expect(Object.keys(variables)).toEqual(['NODE_ENV', 'HOST', 'PORT', 'GATEWAY_REVISION']);
    expect(Object.keys(variables).filter((name) => !ENVIRONMENT_VARIABLES.includes(name))).toEqual([]);
    const { GATEWAY_REVISION, ...configured } = variables;
    expect(configured).toEqual(Object.fromEntries(Object.keys(configured).map((name) => [name, configMap.data![name]])));
    // The build's, passed by scripts/build-image.sh; a ConfigMap that set it would misname the build.
    expect([GATEWAY_REVISION, dockerfile.match(/^ARG REVISION=(.*)$/m)?.[1], configMap.data!.GATEWAY_REVISION]).toEqual([
      `\${REVISION}`,
      loadConfig({}).revision,
      undefined,
    ]);
    expect(readFileSync(`${ROOT}scripts/build-image.sh`, 'utf8')).toContain('--build-arg "REVISION=$revision"');
  });

  it('exposes and health-checks the port the Kubernetes manifests use', () => {
    expect(Number(dockerfile.match(/^EXPOSE (\d+)$/m)?.[1])).toBe(portNamed('http'));
    expect(dockerfile.match(/PORT=(\d+)/)?.[1]).toBe(configMap.data!.PORT);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\\\n\s+CMD .*'\/health'/m);
  });
});

const endpointsTest = gatewayOverUpstream();

describe('the endpoints the manifests name', () => {
  const it = endpointsTest;

  it('are served by the gateway', async ({ gateway }) => {
    const paths = [
      container.startupProbe.httpGet.path,
      container.livenessProbe.httpGet.path,
      container.readinessProbe.httpGet.path,
      pod.metadata.annotations['prometheus.io/path'],
    ];
    expect(paths).toEqual(['/health', '/health', '/ready', '/metrics']);
    const main = paths.slice(0, 3).map((path) => gateway.url.replace(/\/graphql$/, path));
    const statuses = await Promise.all([...main, gateway.metricsUrl].map(async (url) => (await fetch(url)).status));
    expect(statuses).toEqual([200, 200, 200, 200]);
    // And not on the port the Service exposes.
    expect((await fetch(gateway.url.replace(/\/graphql$/, '/metrics'))).status).toBe(404);
  });
});
