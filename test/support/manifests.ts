import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

/**
 * The Kubernetes manifests of deploy/, parsed: for the tests that check them (test/ops/manifests.test.ts)
 * and the one that runs the image as they say (test/ops/image.test.ts).
 */

const DEPLOY = fileURLToPath(new URL('../../deploy/', import.meta.url));

/** A Kubernetes object as parsed; the tests read its fields one by one. */
export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec?: any;
  data?: Record<string, string>;
};

/** The files of deploy/ but kustomization.yaml, by name. */
export const MANIFEST_FILES = readdirSync(DEPLOY).filter((file) => file.endsWith('.yaml') && file !== 'kustomization.yaml');

/** The objects of one file of deploy/. */
export const objectsOf = (file: string): K8sObject[] =>
  parseAllDocuments(readFileSync(`${DEPLOY}${file}`, 'utf8')).map((document) => document.toJS() as K8sObject);

/** Every object of those files. */
export const objects: K8sObject[] = MANIFEST_FILES.flatMap(objectsOf);

/** The one object of this kind. */
export function only(kind: string): K8sObject {
  const found = objects.filter((object) => object.kind === kind);
  if (found.length !== 1) throw new Error(`deploy/ must hold exactly one ${kind}, it holds ${found.length}`);
  return found[0]!;
}

export const configMap = only('ConfigMap');
export const deployment = only('Deployment');
/** The Deployment's pod template. */
export const pod = deployment.spec.template;
/** The gateway's container in it. */
export const container = pod.spec.containers[0];

/** The containerPort of the container's port with this name. */
export const portNamed = (name: string) =>
  container.ports.find((port: { name: string }) => port.name === name)?.containerPort as number | undefined;

/** The Services, by name: the one the ingress reaches, and the one only Prometheus scrapes. */
export const service = objects.find((object) => object.kind === 'Service' && object.metadata.name === deployment.metadata.name)!;
export const metricsService = objects.find((object) => object.kind === 'Service' && object.metadata.name.endsWith('-metrics'))!;

/** The job the ServiceMonitor scrapes the gateway as (its jobLabel's value); other scrape configurations name theirs. */
export const PROMETHEUS_JOB = 'vms-graphql-gateway';

/** A Kubernetes label's name as Prometheus writes it in a label name of its own: every other character an underscore. */
const sanitized = (name: string) => name.replace(/[^a-zA-Z0-9_]/g, '_');

/** The pod label Prometheus puts on every series of the gateway, with either way of scraping it: the alert rules and the dashboard select by it. */
export const GATEWAY_LABEL = 'app.kubernetes.io/name';

/** The selector of that label, as the rules and the dashboard write it: `app_kubernetes_io_name="vms-graphql-gateway"`. */
export const GATEWAY_SELECTOR = `${sanitized(GATEWAY_LABEL)}="${pod.metadata.labels[GATEWAY_LABEL]}"`;

/**
 * What Prometheus' Kubernetes discovery (role pod) hands over for a pod of the Deployment, for a
 * test that cannot run Kubernetes: the pod template's labels and annotations as `__meta_kubernetes_pod_*`
 * labels, its namespace and name; the scrape port is the test gateway's METRICS_PORT, a free one.
 */
export function discoveredPod(name: string, metricsPort: number): { address: string; labels: Record<string, string> } {
  const meta = (kind: string, map: Record<string, string>) =>
    Object.fromEntries(Object.entries(map).map(([key, value]) => [`__meta_kubernetes_pod_${kind}_${sanitized(key)}`, value]));
  return {
    // The pod's IP and its first container port, as discovery gives the address.
    address: `127.0.0.1:${portNamed('http')}`,
    labels: {
      __meta_kubernetes_namespace: 'default',
      __meta_kubernetes_pod_name: name,
      ...meta('label', pod.metadata.labels),
      ...meta('annotation', { ...pod.metadata.annotations, 'prometheus.io/port': String(metricsPort) }),
    },
  };
}
