// The load generator, in a process of its own so that it never shares an event loop with a server
// under test. It takes jobs over IPC and answers each with what one autocannon run measured.

import autocannon from 'autocannon';
import { isGraphQLData } from './graphql-answer.js';

export interface LoadJob {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  connections: number;
  durationSeconds: number;
  /** Count answers whose body is not a GraphQL result without errors (`isGraphQLData`). */
  expectGraphQLData: boolean;
  /**
   * Each connection sends its own Authorization (the job's, numbered), as each browser has its own
   * token: a caller's identical reads in flight at once share one upstream call, and 50 connections
   * of one caller would measure that sharing instead of 50 callers.
   */
  callerPerConnection?: boolean;
}

export interface LoadResult {
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  transportErrors: number;
  graphqlErrors: number;
}

/**
 * How long a run may go on past its duration while no request has completed: autocannon gives up on
 * a request after 10 s, so by then one has completed, as an answer or as an error.
 */
const FIRST_COMPLETION_WAIT_SECONDS = 60;

async function run(job: LoadJob): Promise<LoadResult> {
  // autocannon's own histogram keeps whole milliseconds; sub-millisecond differences matter here.
  const latencies: number[] = [];
  let clients = 0;
  // A run lasts its duration and, on a machine too busy for any request to complete within it, until
  // the first one completes: a run of no request would measure nothing. The timer is set before
  // autocannon starts, as autocannon's own duration timer would be, so that a run that completes
  // requests in time stops when it always has (autocannon ends a run at its next 1 s sampling tick).
  let due = false;
  let completed = false;
  const stopWhenDone = () => {
    if (due && completed) instance?.stop();
  };
  const timer = setTimeout(() => {
    due = true;
    stopWhenDone();
  }, job.durationSeconds * 1000);
  let instance: autocannon.Instance | undefined;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(
      {
        url: job.url,
        method: job.method,
        headers: job.headers,
        body: job.body,
        connections: job.connections,
        duration: job.durationSeconds + FIRST_COMPLETION_WAIT_SECONDS,
        setupClient: (client) => {
          const caller = clients++;
          if (job.callerPerConnection) client.setHeaders({ ...job.headers, authorization: `${job.headers.authorization}-${caller}` });
          client.on('response', (_status: number, _bytes: number, ms: number) => latencies.push(ms));
        },
        ...(job.expectGraphQLData ? { verifyBody: isGraphQLData } : {}),
      },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    // An answer of any status, an error or a timeout: each counts, so a failing server still ends its run (and fails it).
    const onCompleted = () => {
      completed = true;
      stopWhenDone();
    };
    instance.once('response', onCompleted).once('reqError', onCompleted);
  }).finally(() => clearTimeout(timer));
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return {
    requests: latencies.length,
    // autocannon runs a little past the nominal duration while the last answers arrive.
    requestsPerSecond: latencies.length / ((result.finish.getTime() - result.start.getTime()) / 1000),
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    non2xx: result.non2xx,
    transportErrors: result.errors + result.timeouts,
    graphqlErrors: result.mismatches,
  };
}

process.on('message', (job: LoadJob) => {
  run(job).then(
    (result) => process.send!({ result }),
    (error: unknown) => process.send!({ error: String(error) }),
  );
});
process.on('disconnect', () => process.exit(0));
