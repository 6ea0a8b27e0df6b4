/**
 * The architecture as rules (`npm run deps`): dependencies point one way, from the process start
 * down to the settings. Read from the bottom: config and errors know nothing of the gateway; the
 * upstream client knows nothing of the graph; the schema uses no plugin; only main starts servers.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle makes the layering meaningless and the load order fragile.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'config-imports-nothing-of-the-gateway',
      severity: 'error',
      comment: 'Settings are the bottom layer: they are read before anything they configure exists.',
      from: { path: '^src/config/' },
      to: { path: '^src/(?!config/)' },
    },
    {
      name: 'errors-import-nothing-of-the-gateway',
      severity: 'error',
      comment: 'Every layer raises these errors, so they depend on none.',
      from: { path: '^src/errors\\.ts$' },
      to: { path: '^src/' },
    },
    {
      name: 'field-usage-imports-nothing-of-the-gateway',
      severity: 'error',
      comment: 'How a use of the schema is named is shared by the usage counter (observability), plugins and the scripts: it knows none of them.',
      from: { path: '^src/field-usage\\.ts$' },
      to: { path: '^src/' },
    },
    {
      name: 'http-readings-import-nothing-of-the-gateway',
      comment: 'How a header is read is HTTP alone: plugins and servers share it, it knows none of them.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: '^src/(?!http/)' },
    },
    {
      name: 'upstream-knows-nothing-of-the-graph',
      severity: 'error',
      comment: 'The REST client, paging and error mapping serve any caller: no schema, plugin, server, observability or sandbox.',
      from: { path: '^src/upstream/' },
      to: { path: '^src/(?!upstream/|config/|errors\\.ts$)' },
    },
    {
      name: 'schema-imports-no-plugin',
      severity: 'error',
      comment: 'The schema is built once from resolvers and the context; plugins act around it, not inside it.',
      from: { path: '^src/schema/' },
      to: { path: '^src/(plugins|server|observability|sandbox)/|^src/graphiql/|^src/(gateway|main|cors)\\.ts$' },
    },
    {
      name: 'observability-sits-below-plugins',
      severity: 'error',
      comment: 'Loggers, metrics and tracers are used by plugins and the gateway, never the other way round.',
      from: { path: '^src/observability/' },
      to: { path: '^src/(plugins|server|schema|sandbox)/|^src/graphiql/|^src/(gateway|main|context|cors)\\.ts$' },
    },
    {
      name: 'plugins-are-not-assembled-here',
      severity: 'error',
      comment: 'One useX per file; the ordered list lives in src/gateway.ts alone.',
      from: { path: '^src/plugins/' },
      to: { path: '^src/(plugins|server|sandbox)/|^src/(gateway|main)\\.ts$' },
    },
    {
      name: 'only-main-imports-server',
      severity: 'error',
      comment: 'Listening, shutdown and workers are process concerns: src/main.ts wires them.',
      from: { path: '^src/', pathNot: '^src/(main\\.ts$|server/)' },
      to: { path: '^src/server/' },
    },
    {
      name: 'only-the-upstream-source-starts-the-sandbox',
      severity: 'error',
      comment: 'The gateway never knows whether its upstream is the sandbox: one function of the process layer decides.',
      from: { path: '^src/', pathNot: '^src/(server/upstream-source\\.ts$|sandbox/)' },
      to: { path: '^src/sandbox/' },
    },
    {
      name: 'sandbox-stands-alone',
      severity: 'error',
      comment: 'The fake REST API shares only the upstream record types with the gateway.',
      from: { path: '^src/sandbox/' },
      to: { path: '^src/(?!sandbox/|upstream/records\\.ts$)' },
    },
    {
      name: 'only-the-shared-state-knows-redis',
      comment: 'One module owns the Redis client, its timeouts, keys and failures (../shared/design/shared-state.md); the others hold stores.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/state/' },
      to: { path: 'node_modules/ioredis/' },
    },
    {
      name: 'shared-state-sits-below-plugins',
      comment: 'The stores serve plugins and the gateway; they know no plugin, schema or server.',
      severity: 'error',
      from: { path: '^src/state/' },
      to: { path: '^src/(plugins|server|schema|sandbox|upstream)/|^src/graphiql/|^src/(gateway|main|context|cors)\\.ts$' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
