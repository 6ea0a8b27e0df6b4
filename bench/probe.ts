// Lets the benchmark read this process's own CPU time and peak RSS over IPC, so the numbers come
// from process accounting of the server under test, not from wall time seen by the load generator.

/** What a server process reports when asked: CPU so far, the peak RSS since the last ask, and where that peak sat. */
export interface Usage {
  cpuMicros: number;
  rssBytes: number;
  peakRssBytes: number;
  /** process.memoryUsage() at the peak: V8 heap used and total, and memory outside the heap (buffers). */
  atPeak: { heapUsedBytes: number; heapTotalBytes: number; externalBytes: number; arrayBuffersBytes: number };
}

/**
 * Starts answering `usage` messages from the parent; call once the server listens, with its port.
 * When the parent lets go, `beforeExit` (if any) finishes before the process exits. A server of
 * several processes gives its `usage` instead of this process's own.
 */
export function reportToParent(port: number, beforeExit?: () => Promise<void>, usageOf?: () => Usage): void {
  const sample = () => {
    const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
    return {
      rss,
      atPeak: { heapUsedBytes: heapUsed, heapTotalBytes: heapTotal, externalBytes: external, arrayBuffersBytes: arrayBuffers },
    };
  };
  let peak = sample();
  // Sampling is a cheap syscall and a heap-statistics read; 20 times a second is enough to see a peak under steady load.
  const sampler = setInterval(() => {
    const now = sample();
    if (now.rss > peak.rss) peak = now;
  }, 50);
  sampler.unref();
  process.on('message', (message) => {
    if (message !== 'usage') return;
    if (usageOf) return void process.send!({ usage: usageOf() });
    const { user, system } = process.cpuUsage();
    const now = sample();
    if (now.rss > peak.rss) peak = now;
    const usage: Usage = { cpuMicros: user + system, rssBytes: now.rss, peakRssBytes: peak.rss, atPeak: peak.atPeak };
    peak = now;
    process.send!({ usage });
  });
  process.on('disconnect', () => {
    if (beforeExit) beforeExit().finally(() => process.exit(0));
    else process.exit(0);
  });
  process.send!({ port });
}
