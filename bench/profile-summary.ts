// Summarises a V8 profile from `npm run bench`: self time of a CPU profile (`--profile DIR`,
// *.cpuprofile) or bytes allocated in a sampled allocation profile (`--allocations DIR`,
// *.heapprofile), by package and by function, to see where the gateway's CPU and garbage go.
//   npx tsx bench/profile-summary.ts FILE

import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface CpuProfile {
  nodes: Array<{ id: number; callFrame: CallFrame }>;
  samples: number[];
  timeDeltas: number[];
}
interface AllocationNode {
  callFrame: CallFrame;
  selfSize: number;
  children: AllocationNode[];
}

const file = process.argv[2]!;
const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile | { head: AllocationNode };

/** Self cost per call frame: microseconds for a CPU profile, bytes for an allocation profile. */
const costs: Array<[CallFrame, number]> = [];
if ('head' in profile) {
  const walk = (node: AllocationNode) => {
    costs.push([node.callFrame, node.selfSize]);
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
} else {
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  for (const [i, id] of profile.samples.entries()) costs.push([frames.get(id)!, profile.timeDeltas[i] ?? 0]);
}
const total = costs.reduce((sum, [, cost]) => sum + cost, 0);

function packageOf(url: string): string {
  // The benchmark's own compiled copy of src lives under node_modules/.cache.
  if (url.includes('/src/')) return `src/${url.split('/src/')[1]}`;
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (match) return match[1]!;
  return url || '(native/gc/idle)';
}

const byPackage = new Map<string, number>();
const byFunction = new Map<string, number>();
for (const [{ functionName, url, lineNumber }, cost] of costs) {
  const pkg = packageOf(url);
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + cost);
  const fn = `${functionName || '(anonymous)'} ${pkg}:${lineNumber + 1}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + cost);
}
const top = (map: Map<string, number>, n: number) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, cost]) => `${((100 * cost) / total).toFixed(1).padStart(5)}%  ${name}`);
const amount = 'head' in profile ? `${(total / 2 ** 20).toFixed(0)} MB allocated (sampled)` : `${(total / 1000).toFixed(0)} ms`;
console.log(`total ${amount}\n\nby package:\n${top(byPackage, 25).join('\n')}\n\nby function:\n${top(byFunction, 40).join('\n')}`);
