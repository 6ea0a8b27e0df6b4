import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { parse } from 'yaml';
import { ruleFile } from '../../scripts/rule-file.js';
import { spawnGateway } from '../support/child-gateway.js';
import { test } from '../support/fixtures.js';
import { PROMETHEUS_JOB } from '../support/manifests.js';
import { describeWithPrometheus, startPrometheus } from '../support/prometheus.js';
import { envelope } from '../support/recording-upstream.js';
import { describeWithRedis, startRedis } from '../support/redis.js';
import { sendEveryKind, startBusyGateway } from '../support/traffic.js';

interface Panel {
  type: string;
  title: string;
  datasource?: { type: string; uid: string };
  targets?: Array<{ expr: string; refId: string }>;
  panels?: Panel[];
}

const dashboard = JSON.parse(readFileSync(new URL('../../deploy/grafana-dashboard.json', import.meta.url), 'utf8')) as {
  uid: string;
  panels: Panel[];
  templating: { list: Array<{ name: string; type: string; query: unknown; allValue?: string }> };
};

/** The alerts of deploy/prometheus-rules.yaml. */
const ALERTS = (parse(ruleFile()) as { groups: Array<{ rules: Array<{ alert: string; expr: string }> }> }).groups.flatMap(
  (group) => group.rules,
);

/** The metrics a query names: each name before a selector's brace. */
const metricsNamed = (expr: string) => [...expr.matchAll(/([a-zA-Z_:][\w:]*)\{/g)].map((match) => match[1]!);

/** Every panel, those of collapsed rows included. */
const panels = dashboard.panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]).filter((panel) => panel.type !== 'row');

/**
 * A panel's query as Grafana sends it: its variables given the values a dashboard opened on every
 * pod has. `$__rate_interval` is a window that holds the test's traffic whole.
 */
const asSent = (expr: string) => expr.replaceAll('$__rate_interval', '5m').replaceAll('$instance', '.*');

describeWithPrometheus('deploy/grafana-dashboard.json and the alerts of deploy/prometheus-rules.yaml', () => {
  test('every panel queries the Prometheus data source the dashboard asks for, by the job the ServiceMonitor names', () => {
    expect(dashboard.templating.list.map(({ name, type }) => `${name}:${type}`)).toEqual(['datasource:datasource', 'instance:query']);
    for (const panel of panels) {
      expect(panel.datasource, panel.title).toEqual({ type: 'prometheus', uid: `\${datasource}` });
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      for (const { expr } of panel.targets!) expect(expr, panel.title).toContain(`job="${PROMETHEUS_JOB}"`);
    }
    expect(new Set(panels.map((panel) => panel.title)).size).toBe(panels.length);
  });

  test('an idle gateway process reads an event-loop lag under 20 ms, as Prometheus stores it', { timeout: 60_000 }, async ({ start }) => {
    const upstream = await start.upstream(() => ({ body: envelope([]) }));
    const gateway = await spawnGateway({ UPSTREAM_URL: upstream.url });
    try {
      const prometheus = await startPrometheus({ job: PROMETHEUS_JOB, targets: [`127.0.0.1:${gateway.metricsPort}`] });
      try {
        // The first scrape holds the start-up (modules loading); the figures of each later one, a second of idling.
        await prometheus.scrapes(4);
        const lag = async (figure: string) =>
          (await prometheus.query(`nodejs_eventloop_lag_${figure}_seconds{job="${PROMETHEUS_JOB}"}`)).map((sample) => sample.value);
        const [min, median] = [await lag('min'), await lag('p50')];
        // Sampled every 10 ms, each figure counts that period: about 0.010 for a loop that waits for nothing.
        expect([min.length, median.length]).toEqual([1, 1]);
        expect(min[0], 'nodejs_eventloop_lag_min_seconds').toBeLessThan(0.02);
        expect(median[0], 'nodejs_eventloop_lag_p50_seconds').toBeLessThan(0.02);
      } finally {
        await prometheus.close();
      }
    } finally {
      await gateway.close();
    }
  });

  describeWithRedis('against a real Prometheus scraping a gateway under traffic', () => {
    test('every panel’s query parses and returns data; every alert’s parses and names only metrics the gateway exports', {
      timeout: 120_000,
    }, async ({ start }) => {
      const redis = await startRedis();
      try {
        const gateway = await startBusyGateway(start, redis);
        const prometheus = await startPrometheus({ job: PROMETHEUS_JOB, targets: [new URL(gateway.metricsUrl).host] });
        try {
          // Rounds a scrape apart, so that counters rise between samples; Redis fails halfway, as in an outage.
          for (let round = 0; round < 6; round++) {
            if (round === 3) await redis.kill();
            await sendEveryKind(gateway, round);
            await prometheus.scrapes(1);
          }
          await prometheus.scrapes(2);

          // The pod variable's values: label_values(up{job=...}, instance) is Grafana's; its series are Prometheus'.
          expect((await prometheus.query(`up{job="${PROMETHEUS_JOB}"}`)).map((sample) => sample.metric.instance)).toEqual([
            new URL(gateway.metricsUrl).host,
          ]);
          const answers = await Promise.all(
            panels.flatMap((panel) =>
              panel.targets!.map(async ({ expr, refId }) => {
                const where = `${panel.title} (${refId})`;
                try {
                  const samples = await prometheus.query(asSent(expr));
                  if (samples.length === 0) return `${where}: no data`;
                  return samples.some((sample) => Number.isFinite(sample.value)) ? undefined : `${where}: only ${samples[0]!.value}`;
                } catch (error) {
                  return `${where}: ${(error as Error).message}`;
                }
              }),
            ),
          );
          expect(answers.filter((answer) => answer !== undefined)).toEqual([]);
          // A query that reads 0 where a series is missing (`or ... * 0`) still names only what the gateway exports.
          const named = new Set(panels.flatMap((panel) => panel.targets!.flatMap(({ expr }) => metricsNamed(expr))));
          const missing = await Promise.all(
            [...named].map(async (name) => ((await prometheus.query(`count(${name}{job="${PROMETHEUS_JOB}"})`)).length ? [] : [name])),
          );
          expect(missing.flat()).toEqual([]);
          // No panel may be an empty shell: the test sent each kind of traffic a panel shows.
          expect(answers.length).toBe(panels.reduce((count, panel) => count + panel.targets!.length, 0));

          // The alerts: healthy or not, each expression parses, and each metric it names has series.
          const unknown = await Promise.all(
            ALERTS.map(async ({ alert, expr }) => {
              try {
                await prometheus.query(expr);
              } catch (error) {
                return [`${alert}: ${(error as Error).message}`];
              }
              const names = new Set(metricsNamed(expr));
              const missing = await Promise.all(
                [...names].map(async (name) =>
                  (await prometheus.query(`count(${name}{job="${PROMETHEUS_JOB}"})`)).length ? [] : [`${alert}: ${name}`],
                ),
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
