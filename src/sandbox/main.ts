// Entry point of `npm run sandbox`: serves the sandbox upstream until stopped.

import { startSandbox } from './server.js';

function portFromEnv(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 4010;
  const port = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (port >= 0 && port <= 65535) return port;
  throw new Error(`PORT must be an integer from 0 to 65535, got "${raw}"`);
}

const sandbox = await startSandbox({
  host: process.env.HOST || '127.0.0.1',
  port: portFromEnv(process.env.PORT),
});

console.log(`Sandbox upstream listening on ${sandbox.url}`);
console.log(`Authorization: Bearer ${sandbox.token}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    sandbox.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('sandbox: failed to close', error);
        process.exit(1);
      },
    );
  });
}
