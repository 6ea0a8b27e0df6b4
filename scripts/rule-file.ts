import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

/**
 * The plain Prometheus rule file of deploy/prometheus-rules.yaml: the PrometheusRule's spec, which is
 * a rule file's `groups` as it stands. One source, two forms: the operator reads the PrometheusRule,
 * a Prometheus without it this file (rule_files), and promtool tests this very text.
 *
 *   ./run npx tsx scripts/rule-file.ts > vms-graphql-gateway.rules.yml
 */
export function ruleFile(
  prometheusRule: string = readFileSync(new URL('../deploy/prometheus-rules.yaml', import.meta.url), 'utf8'),
): string {
  const { kind, spec } = parse(prometheusRule) as { kind: string; spec: { groups: unknown[] } };
  if (kind !== 'PrometheusRule') throw new Error(`deploy/prometheus-rules.yaml holds a ${kind}, not a PrometheusRule`);
  return stringify({ groups: spec.groups });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(ruleFile());
