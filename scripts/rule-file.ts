import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

/** Where the plain rule file is committed, for a Prometheus without the operator (rule_files) and promtool. */
export const RULE_FILE = 'deploy/prometheus/vms-graphql-gateway.rules.yml';

const ROOT = new URL('../', import.meta.url);

/**
 * The plain Prometheus rule file of deploy/prometheus-rules.yaml: the PrometheusRule's spec, which is
 * a rule file's `groups` as it stands. One source, two forms: the operator reads the PrometheusRule,
 * a Prometheus without it the committed RULE_FILE, which promtool tests.
 *
 *   ./run npm run deploy:write
 */
export function ruleFile(prometheusRule: string = readFileSync(new URL('deploy/prometheus-rules.yaml', ROOT), 'utf8')): string {
  const { kind, spec } = parse(prometheusRule) as { kind: string; spec: { groups: unknown[] } };
  if (kind !== 'PrometheusRule') throw new Error(`deploy/prometheus-rules.yaml holds a ${kind}, not a PrometheusRule`);
  return [
    '# Generated from deploy/prometheus-rules.yaml (its spec) by `./run npm run deploy:write`: edit that file, not this one.',
    '# For a Prometheus without the operator: list this file under rule_files (docs/operations.md, "Alerts").',
    stringify({ groups: spec.groups }, { lineWidth: 0, blockQuote: 'literal' }),
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeFileSync(new URL(RULE_FILE, ROOT), ruleFile());
