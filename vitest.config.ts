import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Node loads graphql's CommonJS build for graphql-yoga and Pothos; Vite would hand our own
    // sources the .mjs build. Two copies of GraphQLError break instanceof checks (error masking),
    // so tests load the same build as production does.
    alias: [{ find: /^graphql$/, replacement: createRequire(import.meta.url).resolve('graphql') }],
  },
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    projects: [
      // `npm run test:unit`: no sockets, no processes, seconds. test/plugins/: each plugin alone, in process (yoga.fetch).
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts', 'test/plugins/**/*.test.ts'] } },
      // Everything over real HTTP: gateways, upstreams, child processes, Chromium, the benchmark's smoke run.
      { extends: true, test: { name: 'http', include: ['test/**/*.test.ts'], exclude: ['test/unit/**', 'test/plugins/**'] } },
    ],
  },
});
