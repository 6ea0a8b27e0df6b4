// Lets the benchmark read this process's own CPU time and peak RSS over IPC, so the numbers come
// from process accounting of the server under test, not from wall time seen by the load generator.

/** What a server process reports when asked: CPU so far, and the peak RSS since the last ask. */
export interface Usage {
  cpuMicros: number;
  peakRssBytes: number;
}

/** Starts answering `usage` messages from the parent; call once the server listens, with its port. */
export function reportToParent(port: number): void {
  let peak = process.memoryUsage.rss();
  // Sampling RSS is a cheap syscall; 20 times a second is enough to see a peak under steady load.
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 50);
  sampler.unref();
  process.on('message', (message) => {
    if (message !== 'usage') return;
    const { user, system } = process.cpuUsage();
    const usage: Usage = { cpuMicros: user + system, peakRssBytes: Math.max(peak, process.memoryUsage.rss()) };
    peak = process.memoryUsage.rss();
    process.send!({ usage });
  });
  process.on('disconnect', () => process.exit(0));
  process.send!({ port });
}
