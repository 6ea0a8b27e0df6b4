// Summarises a V8 .cpuprofile (from `npm run bench -- --profile DIR`): self time by package and
// by function, to see where the gateway's CPU per request goes.
//   npx tsx bench/profile-summary.ts DIR/CPU.*.cpuprofile

import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const profile = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfMicros = new Map<number, number>();
for (const [i, id] of profile.samples.entries()) selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
const total = [...selfMicros.values()].reduce((a, b) => a + b, 0);

function packageOf(url: string): string {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (match) return match[1]!;
  if (url.startsWith('node:') || url === '') return url || '(native/gc/idle)';
  return url.includes('/src/') ? `src/${url.split('/src/')[1]}` : url;
}

const byPackage = new Map<string, number>();
const byFunction = new Map<string, number>();
for (const [id, micros] of selfMicros) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const pkg = packageOf(url);
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + micros);
  const fn = `${functionName || '(anonymous)'} ${pkg}:${lineNumber + 1}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + micros);
}
const top = (map: Map<string, number>, n: number) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, micros]) => `${((100 * micros) / total).toFixed(1).padStart(5)}%  ${name}`);
console.log(
  `total ${(total / 1000).toFixed(0)} ms\n\nby package:\n${top(byPackage, 25).join('\n')}\n\nby function:\n${top(byFunction, 40).join('\n')}`,
);
