import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { RULE_FILE, ruleFile } from '../../scripts/rule-file.js';
import { runDocumentedCommands } from '../support/documented-command.js';
import { container, GATEWAY_SELECTOR } from '../support/manifests.js';
import { anchorsOf, sectionOf } from '../support/markdown.js';
import { describeWithPrometheus, PROMTOOL } from '../support/prometheus.js';

/**
 * deploy/prometheus-rules.yaml, as promtool reads it: the plain rule file that scripts/rule-file.ts
 * makes of the PrometheusRule, committed as deploy/prometheus/vms-graphql-gateway.rules.yml, checked
 * (`promtool check rules`) and unit-tested on series that should fire each alert and on healthy ones
 * (`promtool test rules`, test/ops/alerts.promtool.yaml), and each alert's runbook in docs/operations.md.
 */

interface Rule {
  alert: string;
  expr: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}
interface PromtoolTests {
  tests: Array<{
    name: string;
    alert_rule_test: Array<{ alertname: string; exp_alerts: Array<{ exp_labels: Record<string, string>; exp_annotations?: unknown }> }>;
  }>;
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The rule file as committed: what a Prometheus without the operator is given. */
const committed = () => readFileSync(join(ROOT, RULE_FILE), 'utf8');
const rules = (parse(ruleFile()) as { groups: Array<{ rules: Rule[] }> }).groups.flatMap((group) => group.rules);
const OPERATIONS = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
const UNIT_TESTS = readFileSync(new URL('alerts.promtool.yaml', import.meta.url), 'utf8');

const run = promisify(execFile);

/** Runs promtool in `cwd`: its output, and 0 or its exit code. */
async function promtoolIn(cwd: string, args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(PROMTOOL, args, { cwd });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

/** Runs promtool in a folder holding the committed rule file as rules.yaml and `files`. */
async function promtool(args: string[], files: Record<string, string> = {}): Promise<{ code: number; output: string }> {
  const folder = await mkdtemp(join(tmpdir(), 'vms-promtool-'));
  try {
    await writeFile(join(folder, 'rules.yaml'), committed());
    for (const [name, text] of Object.entries(files)) await writeFile(join(folder, name), text);
    return await promtoolIn(folder, args);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/**
 * The unit tests with each expected alert's annotations: its rule's, with `{{ $labels.x }}` filled
 * from the alert's labels, as Prometheus renders them.
 */
function withAnnotations(tests: PromtoolTests): PromtoolTests {
  for (const test of tests.tests)
    for (const check of test.alert_rule_test) {
      const rule = rules.find((candidate) => candidate.alert === check.alertname)!;
      for (const alert of check.exp_alerts)
        alert.exp_annotations = Object.fromEntries(
          Object.entries(rule.annotations).map(([name, text]) => [
            name,
            text.replace(/\{\{ \$labels\.(\w+) \}\}/g, (_, label: string) => alert.exp_labels[label] ?? ''),
          ]),
        );
    }
  return tests;
}

it(`${RULE_FILE} is the PrometheusRule's spec as a plain rule file, as npm run deploy:write writes it`, () => {
  expect(committed(), `${RULE_FILE} is stale: run \`./run npm run deploy:write\` and commit it`).toBe(ruleFile());
});

describeWithPrometheus('deploy/prometheus-rules.yaml', () => {
  it('is a rule file promtool accepts as committed, with the alerts the issue asks for', async () => {
    const { code, output } = await promtoolIn(ROOT, ['check', 'rules', RULE_FILE]);
    expect([code, output.trim().split('\n').at(-1)?.trim()]).toEqual([0, `SUCCESS: ${rules.length} rules found`]);
    expect(rules.map((rule) => rule.alert)).toEqual([
      'GatewayHighErrorRatio',
      'GatewayHighLatency',
      'GatewayUpstreamFailing',
      'GatewayUpstreamCircuitOpen',
      'GatewaySharedStateFailing',
      'GatewaySharedStateDown',
      'GatewayRateLimitRefusalsSurging',
      'GatewayMemoryNearLimit',
      'GatewayTargetDown',
    ]);
  });

  it('fires each alert on the series that should fire it and stays silent on healthy ones (promtool test rules)', async () => {
    const tests = withAnnotations(parse(UNIT_TESTS) as PromtoolTests);
    const { code, output } = await promtool(['test', 'rules', 'tests.yaml'], { 'tests.yaml': stringify(tests) });
    expect(code, output).toBe(0);
    expect(output).toContain('SUCCESS');
    // Every alert has a case that fires it and one where it stays silent.
    const checks = tests.tests.flatMap((test) => test.alert_rule_test);
    for (const { alert } of rules) {
      const of = checks.filter((check) => check.alertname === alert);
      expect([alert, of.some((check) => check.exp_alerts.length > 0), of.some((check) => check.exp_alerts.length === 0)]).toEqual([
        alert,
        true,
        true,
      ]);
    }
  });

  it('a unit test that expects the wrong alert fails: promtool is really comparing', async () => {
    const tests = withAnnotations(parse(UNIT_TESTS) as PromtoolTests);
    tests.tests[0]!.alert_rule_test.at(-1)!.exp_alerts = [];
    const { code, output } = await promtool(['test', 'rules', 'tests.yaml'], { 'tests.yaml': stringify(tests) });
    expect([code, output]).toEqual([1, expect.stringContaining('alertname: GatewayHighErrorRatio')]);
  });
});

it('every rule selects the gateway by the pod label the manifests set, never by a job name, and the memory alert the Deployment’s own limit', () => {
  for (const rule of rules) {
    const selectors = [...rule.expr.matchAll(/\{[^}]*\}/g)].map(([selector]) => selector);
    expect([rule.alert, selectors.length > 0 && selectors.every((selector) => selector.startsWith(`{${GATEWAY_SELECTOR}`))]).toEqual([
      rule.alert,
      true,
    ]);
    expect([rule.alert, rule.expr.includes('job=')]).toEqual([rule.alert, false]);
  }
  const limit = /^(\d+)Mi$/.exec(container.resources.limits.memory)!;
  const memory = rules.find((rule) => rule.alert === 'GatewayMemoryNearLimit')!;
  expect(memory.expr).toContain(`0.9 * ${Number(limit[1]) * 1024 * 1024}`);
  expect(memory.annotations.summary).toContain(`${limit[1]} MiB`);
});

it('every alert has a runbook of its own in docs/operations.md: what it means, how to confirm, what to do', () => {
  const urls = rules.map((rule) => rule.annotations.runbook_url ?? '');
  const [base] = urls[0]!.split('docs/operations.md#');
  const anchors = urls.map((url) => url.slice(`${base}docs/operations.md#`.length));
  expect(urls).toEqual(anchors.map((anchor) => `${base}docs/operations.md#${anchor}`));
  expect(new Set(anchors).size).toBe(rules.length);
  expect(anchors.filter((anchor) => !anchorsOf(OPERATIONS).has(anchor))).toEqual([]);
  const runbooks = sectionOf(OPERATIONS, 'runbooks')!;
  for (const anchor of anchors) {
    const runbook = sectionOf(runbooks, anchor);
    expect([anchor, runbook?.match(/\*\*(What it means|How to confirm|What to do)\.\*\*/g)]).toEqual([
      anchor,
      ['**What it means.**', '**How to confirm.**', '**What to do.**'],
    ]);
  }
});

it('is written as the plain rule file by the command docs/operations.md prints, as printed', async () => {
  const [command] = /```sh\n(\.\/run npm run deploy:write)\n```/.exec(OPERATIONS)!.slice(1);
  const { runs, files } = await runDocumentedCommands([command!], [RULE_FILE]);
  expect(runs[0]!.code).toBe(0);
  expect(files[RULE_FILE]).toBe(ruleFile());
});
