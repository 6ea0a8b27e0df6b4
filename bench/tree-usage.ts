// CPU and RSS of a server that runs as several processes (the peer, which may fork workers; the
// gateway with WORKERS), read from /proc for the whole process tree, as one server's usage.

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Usage } from './probe.js';

/** The process and its descendants (Hive Gateway may fork workers). */
function tree(pid: number): number[] {
  const children = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [pid, ...children.flatMap(tree)];
}

const TICKS_PER_SECOND = 100;

/** CPU so far, RSS now and peak RSS since the last call, of the whole process tree, from /proc. */
export function treeUsage(pid: number): Usage {
  let cpuMicros = 0;
  let rssBytes = 0;
  let peakRssBytes = 0;
  for (const one of tree(pid)) {
    const fields = readFileSync(`/proc/${one}/stat`, 'utf8').split(') ')[1]!.split(' ');
    cpuMicros += ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1e6;
    const status = readFileSync(`/proc/${one}/status`, 'utf8');
    rssBytes += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
    peakRssBytes += Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
    // Resets VmHWM, so the next call sees the peak of the next measurement only.
    writeFileSync(`/proc/${one}/clear_refs`, '5');
  }
  return {
    cpuMicros,
    rssBytes,
    peakRssBytes,
    atPeak: { heapUsedBytes: NaN, heapTotalBytes: NaN, externalBytes: NaN, arrayBuffersBytes: NaN },
  };
}
