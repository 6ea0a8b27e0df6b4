// What an idle gateway's memory is made of: the packages it loads, imported one at a time into this
// process, each followed by two full collections, with the RSS and V8 heap each one adds. Needs
// --expose-gc, which `npm run bench:modules` passes; for another Node, after `npm run bench:modules`
// has compiled it once:
//   /path/to/node --expose-gc node_modules/.cache/vms-bench/bench/modules.js

const steps: Array<[string, () => Promise<unknown>]> = [
  ['graphql', () => import('graphql')],
  ['graphql-yoga (with whatwg-node)', () => import('graphql-yoga')],
  ['undici', () => import('undici')],
  ['zod', () => import('zod')],
  ['@envelop/graphql-jit', () => import('@envelop/graphql-jit')],
  ['@apollo/subgraph', () => import('@apollo/subgraph')],
  [
    '@pothos/core, prom-client, opossum, graphql-armor, pino, @opentelemetry/api',
    () =>
      Promise.all([
        import('@pothos/core'),
        import('prom-client'),
        import('opossum'),
        import('@escape.tech/graphql-armor'),
        import('pino'),
        import('@opentelemetry/api'),
      ]),
  ],
  ['the schema', () => import('../src/schema/index.js')],
  ['the rest of the gateway', () => import('../src/gateway.js')],
];

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('Run with --expose-gc: npm run bench:modules');
const MB = 2 ** 20;
/** Signed, in MB: RSS can also shrink once a collection returns pages. */
const delta = (bytes: number) => `${bytes >= 0 ? '+' : '−'}${(Math.abs(bytes) / MB).toFixed(1)}`;
const measure = () => {
  gc();
  gc();
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heapUsed };
};

let before = measure();
const lines = [
  `Node ${process.version}.`,
  '',
  '| Loaded | RSS added | Heap added |',
  '|---|---:|---:|',
  `| bare \`node\` | ${(before.rss / MB).toFixed(1)} MB | ${(before.heapUsed / MB).toFixed(1)} MB |`,
];
for (const [name, load] of steps) {
  await load();
  const after = measure();
  lines.push(`| ${name} | ${delta(after.rss - before.rss)} | ${delta(after.heapUsed - before.heapUsed)} |`);
  before = after;
}
lines.push('', `Total: ${(before.rss / MB).toFixed(1)} MB RSS, ${(before.heapUsed / MB).toFixed(1)} MB heap in use.`);
console.log(lines.join('\n'));
