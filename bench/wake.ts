// Where the latency added at +20 ms upstream comes from: the same request, one at a time, sent
// back to back and then after the machine has been idle for a while. Three servers (the upstream
// alone, the floor, the gateway), each in its own process on 127.0.0.1, on the Node given by
// --node. With --busy, one process per CPU spins at the lowest priority meanwhile, so that no CPU halts:
// if the idle penalty then disappears, it belongs to the machine's idle state, not to the servers.
// It also prints the CPU each server burns per second while nobody calls it.
//
//   npm run bench:wake -- [--node /path/to/node] [--busy] [--requests 400] [--idle-ms 20]

import { type ChildProcess, spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { apiKeysQuery } from './queries.js';
import { forkServer } from './servers.js';

const { values: args } = parseArgs({
  options: {
    node: { type: 'string' },
    busy: { type: 'boolean', default: false },
    requests: { type: 'string', default: '400' },
    'idle-ms': { type: 'string', default: '20' },
  },
});
const serverNode = args.node ?? process.execPath;
const requests = Number(args.requests);
const idleMs = Number(args['idle-ms']);
const children: ChildProcess[] = [];
const start = (file: string, env: Record<string, string> = {}) => forkServer(file, file, { execPath: serverNode, env, track: children });

const upstream = await start('./upstream.js');
const upstreamUrl = `http://127.0.0.1:${upstream.port}/v2`;
const [floor, gateway] = await Promise.all([
  start('./floor.js', { UPSTREAM_URL: upstreamUrl }),
  start('./gateway.js', { UPSTREAM_URL: upstreamUrl }),
]);
const spinners = args.busy ? cpus().map(() => spawn('nice', ['-n', '19', process.execPath, '-e', 'for(;;){}'], { stdio: 'ignore' })) : [];

const query = JSON.stringify({ query: apiKeysQuery(25) });
const targets = [
  { name: 'direct REST', server: upstream, url: `${upstreamUrl}/api_keys?limit=25`, method: 'GET' as const, body: undefined },
  { name: 'floor', server: floor, url: `http://127.0.0.1:${floor.port}/graphql`, method: 'POST' as const, body: query },
  { name: 'gateway', server: gateway, url: `http://127.0.0.1:${gateway.port}/graphql`, method: 'POST' as const, body: query },
];
const agent = new Agent({ connections: 1 });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function once(target: (typeof targets)[number]): Promise<number> {
  const started = process.hrtime.bigint();
  const answer = await request(target.url, {
    dispatcher: agent,
    method: target.method,
    headers: { authorization: 'Bearer sandbox-token', 'content-type': 'application/json', accept: 'application/json' },
    body: target.body,
  });
  await answer.body.text();
  if (answer.statusCode !== 200) throw new Error(`${target.name} answered ${answer.statusCode}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.99)]!;

// Warm every server first, so that no process is still compiling its hot paths.
for (const target of targets) for (let i = 0; i < 3000; i++) await once(target);

// What each server burns while nobody calls it: its own timers (and the probe's 50 ms sampler, the same in each).
const IDLE_SECONDS = 5;
const idleBefore = await Promise.all(targets.map((target) => target.server.usage()));
await sleep(IDLE_SECONDS * 1000);
const idleAfter = await Promise.all(targets.map((target) => target.server.usage()));
const idleCpu = targets.map(
  (target, i) => `${target.name} ${((idleAfter[i]!.cpuMicros - idleBefore[i]!.cpuMicros) / 1000 / IDLE_SECONDS).toFixed(1)} ms`,
);

const results: string[] = [];
for (const target of targets) {
  for (const idle of [0, idleMs]) {
    const before = await target.server.usage();
    const times: number[] = [];
    for (let i = 0; i < requests; i++) {
      if (idle > 0) await sleep(idle);
      times.push(await once(target));
    }
    const after = await target.server.usage();
    const cpu = (after.cpuMicros - before.cpuMicros) / requests;
    results.push(
      `| ${target.name} | ${idle === 0 ? 'back to back' : `after ${idle} ms idle`} | ${median(times).toFixed(2)} | ${p99(times).toFixed(2)} | ${cpu.toFixed(0)} |`,
    );
  }
}
for (const spinner of spinners) spinner.kill();
for (const child of children) child.disconnect();
await agent.close();
console.log(
  [
    `Servers on Node ${serverNode === process.execPath ? process.versions.node : serverNode}; one request at a time, ${requests} per line; ${args.busy ? 'one spinning process per CPU at nice 19 keeps the CPUs awake' : 'nothing else running'}.`,
    '',
    '| Server | Requests sent | p50 ms | p99 ms | server CPU µs/req |',
    '|---|---|---:|---:|---:|',
    ...results,
    '',
    `CPU per second of idle, over ${IDLE_SECONDS} s: ${idleCpu.join(', ')}.`,
  ].join('\n'),
);
