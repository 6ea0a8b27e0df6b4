import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { parse } from 'yaml';
import { ruleFile } from '../../scripts/rule-file.js';
import { bearer } from '../support/auth.js';
import { spawnGateway } from '../support/child-gateway.js';
import { test } from '../support/fixtures.js';
import { discoveredPod, GATEWAY_SELECTOR } from '../support/manifests.js';
import { sectionOf } from '../support/markdown.js';
import { describeWithPrometheus, type RunningPrometheus, startPrometheus } from '../support/prometheus.js';
import { envelope } from '../support/recording-upstream.js';
import { describeWithRedis, startRedis } from '../support/redis.js';
import { sendEveryKind, startBusyGateway } from '../support/traffic.js';

interface Panel {
  type: string;
  title: string;
  datasource?: { type: string; uid: string };
  fieldConfig?: { defaults: { noValue?: string } };
  targets?: Array<{ expr: string; refId: string }>;
  panels?: Panel[];
}
interface Variable {
  name: string;
  type: string;
  query: unknown;
  current?: { value?: string };
}

const dashboard = JSON.parse(readFileSync(new URL('../../deploy/grafana-dashboard.json', import.meta.url), 'utf8')) as {
  __inputs?: Array<{ name: string; type: string; pluginId: string }>;
  uid: string;
  panels: Panel[];
  templating: { list: Variable[] };
};

/** The alerts of deploy/prometheus-rules.yaml. */
const ALERTS = (parse(ruleFile()) as { groups: Array<{ rules: Array<{ alert: string; expr: string }> }> }).groups.flatMap(
  (group) => group.rules,
);

/**
 * The scrape configuration docs/operations.md gives for a Prometheus without the operator, which
 * reads the Deployment's prometheus.io annotations: the job Prometheus' own Kubernetes example
 * calls kubernetes-pods. The test's Prometheus runs it as written, on pods discovered as
 * Kubernetes would hand them over (`discoveredPod`).
 */
const OPERATIONS = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
const PODS_JOB = (
  parse(/```yaml\n([\s\S]*?)```/.exec(sectionOf(OPERATIONS, 'the-scrape-configuration') ?? '')?.[1] ?? 'scrape_configs: []') as {
    scrape_configs: Array<{ job_name: string; kubernetes_sd_configs: unknown; relabel_configs: unknown[] }>;
  }
).scrape_configs[0];

/** A real Prometheus scraping gateways by that configuration, each as a pod of the Deployment. */
function scrapePods(...metricsPorts: number[]): Promise<RunningPrometheus> {
  expect(PODS_JOB?.kubernetes_sd_configs).toEqual([{ role: 'pod' }]);
  return startPrometheus({
    job: PODS_JOB!.job_name,
    targets: metricsPorts.map((port, index) => discoveredPod(`vms-graphql-gateway-${index}`, port)),
    relabelConfigs: PODS_JOB!.relabel_configs,
  });
}

/** The metrics a query names: each name before a selector's brace. */
const metricsNamed = (expr: string) => [...expr.matchAll(/([a-zA-Z_:][\w:]*)\{/g)].map((match) => match[1]!);

/** Every panel, those of collapsed rows included. */
const panels = dashboard.panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]).filter((panel) => panel.type !== 'row');
const panel = (title: string) => panels.find((candidate) => candidate.title === title)!;

/**
 * The variables' values as Grafana gives them to a dashboard opened on every pod: each query
 * variable's `label_values(selector, label)` evaluated in turn (a later one may use an earlier one),
 * its first value taken, or `.*` for the pod variable's All.
 */
async function variableValues(prometheus: RunningPrometheus): Promise<Record<string, string>> {
  const values: Record<string, string> = {};
  for (const variable of dashboard.templating.list.filter(({ type }) => type === 'query')) {
    const [, selector, label] = /^label_values\((.*), (\w+)\)$/.exec((variable.query as { query: string }).query)!;
    const found = (await prometheus.query(withValues(selector!, values))).map((sample) => sample.metric[label!]!);
    expect(found.length, `${variable.name}: ${selector}`).toBeGreaterThan(0);
    values[variable.name] = variable.name === 'instance' ? '.*' : found.sort()[0]!;
  }
  return values;
}

/** A query as Grafana sends it; `$__rate_interval` is a window that holds the test's traffic whole. */
const withValues = (expr: string, values: Record<string, string>) =>
  Object.entries(values).reduce((text, [name, value]) => text.replaceAll(`$${name}`, value), expr.replaceAll('$__rate_interval', '5m'));

/** What each panel's queries return: `${title} (${refId})` → the values, or Prometheus' error. */
async function panelAnswers(prometheus: RunningPrometheus, values: Record<string, string>): Promise<Map<string, number[] | string>> {
  const answers = await Promise.all(
    panels.flatMap(({ title, targets }) =>
      targets!.map(async ({ expr, refId }): Promise<[string, number[] | string]> => {
        try {
          return [`${title} (${refId})`, (await prometheus.query(withValues(expr, values))).map((sample) => sample.value)];
        } catch (error) {
          return [`${title} (${refId})`, (error as Error).message];
        }
      }),
    ),
  );
  return new Map(answers);
}

describeWithPrometheus('deploy/grafana-dashboard.json and the alerts of deploy/prometheus-rules.yaml', () => {
  test('every panel selects the gateway by its pod label, the job and the pods chosen, from the data source asked for at import', () => {
    // Grafana's import asks for the input; the data source variable starts on what was chosen.
    expect(dashboard.__inputs).toEqual([expect.objectContaining({ name: 'DS_PROMETHEUS', type: 'datasource', pluginId: 'prometheus' })]);
    expect(dashboard.templating.list.map(({ name, type }) => `${name}:${type}`)).toEqual([
      'datasource:datasource',
      'job:query',
      'instance:query',
    ]);
    expect(dashboard.templating.list[0]!.current?.value).toBe(`\${DS_PROMETHEUS}`);
    for (const { title, datasource, targets } of panels) {
      expect(datasource, title).toEqual({ type: 'prometheus', uid: `\${datasource}` });
      expect(targets?.length, title).toBeGreaterThan(0);
      const selects = `{${GATEWAY_SELECTOR}, job="$job", instance=~"$instance"`;
      for (const { expr } of targets!)
        for (const [selector] of expr.matchAll(/\{[^}]*\}/g)) expect(selector.startsWith(selects), `${title}: ${selector}`).toBe(true);
    }
    expect(new Set(panels.map(({ title }) => title)).size).toBe(panels.length);
    // What Grafana shows when the query finds no series: for these two, a setting that is off.
    expect(panel('Read cache hit ratio').fieldConfig?.defaults.noValue).toContain('CACHE_TTL_MS');
    expect(panel('Redis reached').fieldConfig?.defaults.noValue).toContain('REDIS_URL');
  });

  test('an idle gateway process reads an event-loop lag under 20 ms; its off cache and Redis read as the panels’ own words', {
    timeout: 60_000,
  }, async ({ start }) => {
    const upstream = await start.upstream(() => ({ body: envelope([]) }));
    const gateway = await spawnGateway({ UPSTREAM_URL: upstream.url });
    try {
      const prometheus = await scrapePods(gateway.metricsPort);
      try {
        // The first scrape holds the start-up (modules loading); the figures of each later one, a second of idling.
        await prometheus.scrapes(4);
        const lag = async (figure: string) =>
          (await prometheus.query(`nodejs_eventloop_lag_${figure}_seconds{${GATEWAY_SELECTOR}}`)).map((sample) => sample.value);
        const [min, median] = [await lag('min'), await lag('p50')];
        // Sampled every 10 ms, each figure counts that period: about 0.010 for a loop that waits for nothing.
        expect([min.length, median.length]).toEqual([1, 1]);
        expect(min[0], 'nodejs_eventloop_lag_min_seconds').toBeLessThan(0.02);
        expect(median[0], 'nodejs_eventloop_lag_p50_seconds').toBeLessThan(0.02);
        // Without CACHE_TTL_MS and Redis those panels find no series, and say why (noValue, above).
        const answers = await panelAnswers(prometheus, await variableValues(prometheus));
        expect([answers.get('Read cache hit ratio (A)'), answers.get('Redis reached (A)')]).toEqual([[], []]);
      } finally {
        await prometheus.close();
      }
    } finally {
      await gateway.close();
    }
  });

  describeWithRedis('against a real Prometheus scraping a gateway by the documented configuration', () => {
    test('healthy, every alert is silent and the failure panels read 0; under every kind of traffic, every panel has data', {
      timeout: 120_000,
    }, async ({ start }) => {
      const redis = await startRedis();
      try {
        const gateway = await startBusyGateway(start, redis);
        const prometheus = await scrapePods(Number(new URL(gateway.metricsUrl).port));
        try {
          // Healthy: reads the upstream answers, nothing else, each caller's own (the read cache answers none of
          // them); a scrape between them, so that the counters rise.
          const read = (caller: number) =>
            gateway.graphql('{ apiKeys(first: 1) { edges { node { id } } } }', { headers: bearer(`healthy-${caller}`) });
          await read(0);
          await prometheus.scrapes(2);
          for (let caller = 1; caller <= 3; caller++) await read(caller);
          await prometheus.scrapes(2);
          const values = await variableValues(prometheus);
          expect(values).toEqual({ job: PODS_JOB!.job_name, instance: '.*' });
          const healthy = await panelAnswers(prometheus, values);
          expect(
            ['Error ratio (A)', 'Upstream calls answered 5xx or not at all (A)', 'Rate-limit refusals (A)', 'Redis reached (A)'].map(
              (name) => [name, healthy.get(name)],
            ),
          ).toEqual([
            ['Error ratio (A)', [0]],
            ['Upstream calls answered 5xx or not at all (A)', [0]],
            ['Rate-limit refusals (A)', [0]],
            ['Redis reached (A)', [1]],
          ]);
          const firing = await Promise.all(ALERTS.map(async ({ alert, expr }) => ((await prometheus.query(expr)).length ? [alert] : [])));
          expect(firing.flat()).toEqual([]);

          // Rounds a scrape apart, so that counters rise between samples; Redis fails halfway, as in an outage.
          for (let round = 0; round < 6; round++) {
            if (round === 3) await redis.kill();
            await sendEveryKind(gateway, round);
            await prometheus.scrapes(1);
          }
          await prometheus.scrapes(2);

          const answers = await panelAnswers(prometheus, values);
          const empty = [...answers].flatMap(([name, answer]) =>
            typeof answer === 'string'
              ? [`${name}: ${answer}`]
              : answer.some(Number.isFinite)
                ? []
                : [`${name}: ${answer.join() || 'no data'}`],
          );
          expect(empty).toEqual([]);
          // No panel may be an empty shell: the test sent each kind of traffic a panel shows.
          expect(answers.size).toBe(panels.reduce((count, { targets }) => count + targets!.length, 0));
          // A query that reads 0 where a series is missing (`or vector(0)`) still names only what the gateway exports.
          const exported = async (name: string) => (await prometheus.query(`count(${name}{${GATEWAY_SELECTOR}})`)).length > 0;
          const named = new Set(panels.flatMap(({ targets }) => targets!.flatMap(({ expr }) => metricsNamed(expr))));
          expect((await Promise.all([...named].map(async (name) => ((await exported(name)) ? [] : [name])))).flat()).toEqual([]);

          // The alerts: healthy or not, each expression parses, and each metric it names has series.
          const unknown = await Promise.all(
            ALERTS.map(async ({ alert, expr }) => {
              try {
                await prometheus.query(expr);
              } catch (error) {
                return [`${alert}: ${(error as Error).message}`];
              }
              const missing = await Promise.all(
                [...new Set(metricsNamed(expr))].map(async (name) => ((await exported(name)) ? [] : [`${alert}: ${name}`])),
              );
              return missing.flat();
            }),
          );
          expect(unknown.flat()).toEqual([]);
        } finally {
          await prometheus.close();
        }
      } finally {
        await redis.close();
      }
    });
  });
});
