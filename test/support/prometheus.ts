import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from 'vitest';
import { freePort } from './ports.js';

/** Debian's Prometheus (`apt-get install prometheus`, which .ci/run does), or PROMETHEUS_PATH. */
const PROMETHEUS = process.env.PROMETHEUS_PATH ?? '/usr/bin/prometheus';

/**
 * A describe block that needs Prometheus. Without it it is skipped with a message, except under
 * CI=true, where a missing Prometheus fails the run.
 */
export function describeWithPrometheus(name: string, tests: () => void): void {
  const found = existsSync(PROMETHEUS);
  if (!found) {
    const message = `No Prometheus at ${PROMETHEUS}: install it (apt-get install -y prometheus) or set PROMETHEUS_PATH.`;
    if (process.env.CI === 'true') throw new Error(`${message} CI=true, so the Prometheus tests may not be skipped.`);
    console.warn(`${message} The tests in "${name}" are skipped.`);
  }
  describe.skipIf(!found)(name, tests);
}

export interface Prometheus {
  /** http://127.0.0.1:<port>, its HTTP API under /api/v1. */
  url: string;
  close(): Promise<void>;
}

/**
 * A Prometheus of its own on a free loopback port, with its own data folder, scraping `target`
 * (`127.0.0.1:<port>`, path /metrics) every second; stopped by its PID and its folder removed on close.
 */
export async function startPrometheus(target: string): Promise<Prometheus> {
  const folder = await mkdtemp(join(tmpdir(), 'prometheus-'));
  const port = await freePort();
  await writeFile(
    join(folder, 'prometheus.yml'),
    `global: { scrape_interval: 1s, evaluation_interval: 1s }\nscrape_configs: [{ job_name: gateway, static_configs: [{ targets: ['${target}'] }] }]\n`,
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
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Server is ready to receive web requests.')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`prometheus exited with ${code}: ${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      if (child.exitCode === null) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(folder, { recursive: true, force: true });
    },
  };
}
