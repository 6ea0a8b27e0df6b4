import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { freePort } from './ports.js';

/** Debian's Prometheus and promtool (`apt-get install prometheus`, which .ci/run does), or PROMETHEUS_PATH and PROMTOOL_PATH. */
const PROMETHEUS = process.env.PROMETHEUS_PATH ?? '/usr/bin/prometheus';
export const PROMTOOL = process.env.PROMTOOL_PATH ?? '/usr/bin/promtool';

const installed = [PROMETHEUS, PROMTOOL].every((tool) => spawnSync(tool, ['--version']).status === 0);

/**
 * A describe block that needs the real Prometheus and promtool. Without them it is skipped with a
 * message, except under CI=true, where their absence fails the run: dashboards and alerts are never
 * checked by parsing alone.
 */
export function describeWithPrometheus(name: string, tests: () => void): void {
  if (!installed) {
    const message = `No ${PROMETHEUS} or ${PROMTOOL}: install them (apt-get install -y prometheus) or set PROMETHEUS_PATH and PROMTOOL_PATH.`;
    if (process.env.CI === 'true') throw new Error(`${message} CI=true, so the Prometheus tests may not be skipped.`);
    console.warn(`${message} The tests in "${name}" are skipped.`);
  }
  describe.skipIf(!installed)(name, tests);
}

/** One sample of an instant query's answer: the series' labels and its value (a number, NaN or ±Inf). */
interface Sample {
  metric: Record<string, string>;
  value: number;
}

export interface RunningPrometheus {
  /** http://127.0.0.1:<port> */
  url: string;
  /** An instant query through the HTTP API (`/api/v1/query`); throws with Prometheus' own message when it does not parse. */
  query(promql: string): Promise<Sample[]>;
  /** Resolves once every target of the job has been scraped `count` more times. */
  scrapes(count: number): Promise<void>;
  close(): Promise<void>;
}

/** A target as service discovery hands it to Prometheus: its address and labels, `__meta_*` ones included, before relabelling. */
interface DiscoveredTarget {
  address: string;
  labels: Record<string, string>;
}

export interface PrometheusOptions {
  /** The job's name. */
  job: string;
  /** host:port of each /metrics to scrape, or a target with the labels discovery gives it. */
  targets: Array<string | DiscoveredTarget>;
  /** The job's relabel_configs, as a scrape configuration gives them. @default none */
  relabelConfigs?: unknown[];
  /** @default '1s', so that a test waits seconds, not minutes, for its samples */
  scrapeInterval?: string;
}

/**
 * The real Prometheus, started by the test on a free loopback port with its own configuration and
 * data folder (a temporary one, removed on close), scraping `targets`; stopped by its PID, never a
 * system service.
 */
export async function startPrometheus({
  job,
  targets,
  relabelConfigs,
  scrapeInterval = '1s',
}: PrometheusOptions): Promise<RunningPrometheus> {
  const folder = await mkdtemp(join(tmpdir(), 'vms-prometheus-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  await writeFile(
    join(folder, 'prometheus.yml'),
    JSON.stringify({
      global: { scrape_interval: scrapeInterval, scrape_timeout: scrapeInterval, evaluation_interval: scrapeInterval },
      scrape_configs: [
        {
          job_name: job,
          // One group per target, each with its own labels, as service discovery hands them over.
          static_configs: targets.map((target) =>
            typeof target === 'string' ? { targets: [target] } : { targets: [target.address], labels: target.labels },
          ),
          ...(relabelConfigs ? { relabel_configs: relabelConfigs } : {}),
        },
      ],
    }),
  );
  const child: ChildProcess = spawn(
    PROMETHEUS,
    [
      `--config.file=${join(folder, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(folder, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let output = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    await rm(folder, { recursive: true, force: true });
  };
  const api = async (path: string): Promise<unknown> => {
    const answer = (await (await fetch(`${url}${path}`)).json()) as { status: string; data?: unknown; error?: string };
    if (answer.status !== 'success') throw new Error(`Prometheus: ${answer.error}`);
    return answer.data;
  };
  const query = async (promql: string) => {
    const data = (await api(`/api/v1/query?query=${encodeURIComponent(promql)}`)) as {
      result: Array<{ metric: Record<string, string>; value: [number, string] }>;
    };
    return data.result.map(({ metric, value }) => ({ metric, value: Number(value[1]) }));
  };
  try {
    await expect
      .poll(async () => (child.exitCode === null ? (await fetch(`${url}/-/ready`).catch(() => undefined))?.status : output), {
        timeout: 30_000,
        interval: 100,
      })
      .toBe(200);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    url,
    query,
    async scrapes(count) {
      // Each target's own count of scrapes, from the samples of `up` Prometheus wrote for it.
      const scraped = async () =>
        Math.min(...(await query(`count_over_time(up{job="${job}"}[1h])`)).map((sample) => sample.value), Number.POSITIVE_INFINITY);
      const before = await scraped();
      const start = Number.isFinite(before) ? before : 0;
      await expect
        .poll(async () => ((await query(`up{job="${job}"}`)).length === targets.length ? (await scraped()) - start : 0), {
          timeout: 60_000,
          interval: 200,
        })
        .toBeGreaterThanOrEqual(count);
    },
    close,
  };
}
