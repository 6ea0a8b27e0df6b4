import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Counter, Registry, type RegistryContentType } from 'prom-client';
import { afterAll, describe, expect, it } from 'vitest';
import { runSchemaUsage } from '../../scripts/schema-usage.js';
import { FIELD_USAGE_METRIC } from '../../src/field-usage.js';

/**
 * `npm run schema:usage` on scrapes that prom-client writes, as the gateway's counter will be
 * written (the counter made here from the same `FIELD_USAGE_METRIC`), and on scrapes it refuses.
 * test/ops/schema-breaking.test.ts reads an answer of a real Prometheus.
 */
const folder = mkdtempSync(join(tmpdir(), 'schema-usage-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  writeFileSync(join(folder, name), text);
  return join(folder, name);
};

/** What one gateway's /metrics holds after counting `uses`, in the text format or OpenMetrics. */
async function scrape(uses: [coordinate: string, client: string, count: number][], openMetrics = false): Promise<string> {
  const registry = new Registry<RegistryContentType>();
  if (openMetrics) registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
  const counter = new Counter({ ...FIELD_USAGE_METRIC, labelNames: [...FIELD_USAGE_METRIC.labelNames], registers: [registry] });
  new Counter({ name: 'gateway_graphql_requests_total', help: 'Another metric.', labelNames: ['coordinate'], registers: [registry] }).inc({
    coordinate: 'Not.a(coordinate)',
  });
  for (const [coordinate, client, count] of uses) counter.inc({ coordinate, client }, count);
  return registry.metrics();
}

describe('schema:usage', () => {
  it('adds up the counts of several scrapes into the usage file, per coordinate and client', async () => {
    const first = file(
      'first.txt',
      await scrape([
        ['ApiKey.name', 'web', 3],
        ['Query.apiKeys(first:)', 'none', 1],
      ]),
    );
    const second = file(
      'second.txt',
      await scrape(
        [
          ['ApiKey.name', 'web', 2],
          ['ApiKey.name', 'odd "app"\\\n', 1],
          ['UserRole.ADMIN', 'web', 4],
        ],
        true,
      ),
    );
    expect(await runSchemaUsage([first, second])).toEqual({
      code: 0,
      stderr: '',
      stdout: `{
  "format": "vms-gateway-field-usage",
  "version": 1,
  "coordinates": {
    "ApiKey.name": {
      "odd \\"app\\"\\\\\\n": 1,
      "web": 5
    },
    "Query.apiKeys(first:)": {
      "none": 1
    },
    "UserRole.ADMIN": {
      "web": 4
    }
  }
}
`,
    });
  });

  it('writes an empty usage file for a gateway that has counted nothing yet', async () => {
    expect((await runSchemaUsage([file('none.txt', await scrape([]))])).stdout).toBe(
      '{\n  "format": "vms-gateway-field-usage",\n  "version": 1,\n  "coordinates": {}\n}\n',
    );
  });

  it('exits 2 naming the source and the line for a scrape it cannot read, never writing a usage file that says less', async () => {
    const refusal = async (text: string) => {
      const result = await runSchemaUsage([file('bad.txt', text)]);
      expect([result.code, result.stdout]).toEqual([2, '']);
      return result.stderr;
    };
    const bad = join(folder, 'bad.txt');
    const TYPE = '# TYPE gateway_graphql_field_requests_total counter\n';
    expect(await refusal('# TYPE gateway_graphql_requests_total counter\ngateway_graphql_requests_total 3\n')).toBe(
      `schema:usage: ${bad}: holds no counter gateway_graphql_field_requests_total (no "# TYPE" line for it).\n`,
    );
    expect(await refusal('# TYPE gateway_graphql_field_requests_total gauge\n')).toBe(
      `schema:usage: ${bad}, line 1: gateway_graphql_field_requests_total is a gauge, not a counter.\n`,
    );
    expect(await refusal(`${TYPE}gateway_graphql_field_requests_total{coordinate="ApiKey.name",client="web} 3\n`)).toBe(
      `schema:usage: ${bad}, line 2: malformed labels at column 77.\n`,
    );
    expect(await refusal(`${TYPE}gateway_graphql_field_requests_total{coordinate="ApiKey.name",client="web"} -3\n`)).toBe(
      `schema:usage: ${bad}, line 2: the count is not a finite number of at least 0.\n`,
    );
    expect(await refusal(`${TYPE}gateway_graphql_field_requests_total{coordinate="ApiKey.name",client="web"} NaN\n`)).toBe(
      `schema:usage: ${bad}, line 2: not a sample line.\n`,
    );
    expect(await refusal(`${TYPE}gateway_graphql_field_requests_total{coordinate="ApiKey.name"} 3\n`)).toBe(
      `schema:usage: ${bad}, line 2: no "coordinate" and "client" labels.\n`,
    );
    expect(await refusal(`${TYPE}gateway_graphql_field_requests_total{coordinate="apiKeys.first.x",client="web"} 3\n`)).toBe(
      `schema:usage: ${bad}, line 2: "apiKeys.first.x" is not a schema coordinate.\n`,
    );
    expect(await runSchemaUsage([])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'schema:usage: usage: npm run schema:usage -- <metrics URL or file>... [--out <usage.json>]\n',
    });
  });

  it('reads the answer of Prometheus’ query API, and refuses one with no series', async () => {
    const answer = (result: unknown[]) => JSON.stringify({ status: 'success', data: { resultType: 'vector', result } });
    const series = (coordinate: string, client: string, value: string) => ({
      metric: { coordinate, client },
      value: [1_780_000_000.5, value],
    });
    const query = file('query.json', answer([series('ApiKey.name', 'web', '41.2'), series('ApiKey.type', 'ios', '0')]));
    expect(JSON.parse((await runSchemaUsage([query])).stdout).coordinates).toEqual({
      'ApiKey.name': { web: 42 },
      'ApiKey.type': { ios: 0 },
    });
    const empty = file('empty.json', answer([]));
    expect(await runSchemaUsage([empty])).toEqual({
      code: 2,
      stdout: '',
      stderr: `schema:usage: ${empty}: the query answered no series.\n`,
    });
    const failed = file('failed.json', JSON.stringify({ status: 'error', errorType: 'bad_data', error: 'parse error' }));
    expect((await runSchemaUsage([failed])).stderr).toBe(
      `schema:usage: ${failed}: not a successful answer of Prometheus' query API with a vector result.\n`,
    );
  });
});
