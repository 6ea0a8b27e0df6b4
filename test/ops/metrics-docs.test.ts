import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { test } from '../support/fixtures.js';
import { sectionOf } from '../support/markdown.js';
import { describeWithRedis, startRedis } from '../support/redis.js';
import { sendEveryKind, startBusyGateway } from '../support/traffic.js';

/**
 * docs/operations.md lists every metric the gateway exports: the metrics a scrape after every kind
 * of traffic finds (the registry is the one list of them) against the section's tables.
 */

interface Family {
  type: string;
  labels: Set<string>;
}

/** The metric families of a Prometheus text exposition, by name: their type and the labels their samples carry. */
function familiesOf(exposition: string): Map<string, Family> {
  const families = new Map<string, Family>();
  for (const line of exposition.split('\n')) {
    const declared = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (declared) families.set(declared[1]!, { type: declared[2]!, labels: new Set() });
    if (line === '' || line.startsWith('#')) continue;
    const [, name, labels] = /^([\w:]+?)(?:_bucket|_sum|_count)?(?:\{(.*)\})? \S+$/.exec(line) ?? [];
    const family = families.get(name!) ?? families.get(line.split(/[{ ]/)[0]!);
    // A histogram's bucket bound is its own, not a label a metric chose.
    for (const [, label] of (labels ?? '').matchAll(/(\w+)="/g)) if (label !== 'le') family?.labels.add(label!);
  }
  return families;
}

/** The rows of the Metrics section's tables: each metric a row names, its type and labels. */
function documented(): Map<string, Family> {
  const section = sectionOf(readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8'), 'metrics')!;
  const rows = new Map<string, Family>();
  for (const [, names, type, labels] of section.matchAll(/^\| ((?:`[\w:]+`(?:, )?)+) \| (counter|gauge|histogram|summary) \| ([^|]*) \|/gm))
    for (const [, name] of names!.matchAll(/`([\w:]+)`/g))
      rows.set(name!, { type: type!, labels: new Set([...labels!.matchAll(/`(\w+)`/g)].map((match) => match[1]!)) });
  return rows;
}

describeWithRedis('docs/operations.md, section Metrics', () => {
  test('lists every metric the gateway exports after every kind of traffic, with its type and labels, and no other', async ({ start }) => {
    const redis = await startRedis();
    let exposition: string;
    try {
      const gateway = await startBusyGateway(start, redis);
      await sendEveryKind(gateway, 0);
      // Redis gone: the stores' failures are counted.
      await redis.kill();
      await sendEveryKind(gateway, 1);
      exposition = await (await fetch(gateway.metricsUrl)).text();
    } finally {
      await redis.close();
    }
    const exported = familiesOf(exposition);
    const docs = documented();
    const wrong = [...exported].flatMap(([name, { type, labels }]) => {
      const row = docs.get(name);
      if (!row) return [`${name}: not in the docs`];
      if (row.type !== type) return [`${name}: a ${type}, documented as a ${row.type}`];
      // A family whose samples carry no label now (no request in flight, say) cannot tell its labels.
      const same = labels.size === 0 || [...labels].sort().join() === [...row.labels].sort().join();
      return same ? [] : [`${name}: labels ${[...labels].join(', ')}, documented as ${[...row.labels].join(', ') || 'none'}`];
    });
    expect(wrong).toEqual([]);
    expect([...docs.keys()].filter((name) => !exported.has(name))).toEqual([]);
    // The traffic reached the metrics that only some traffic makes.
    for (const name of ['gateway_response_cache_total', 'gateway_shared_state_errors_total', 'gateway_build_info'])
      expect(exported.get(name)?.labels.size, name).toBeGreaterThan(0);
  });
});
