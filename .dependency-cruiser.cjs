const { readFileSync } = require('node:fs');
const { join } = require('node:path');

/**
 * The architecture as rules (`npm run deps`): the layout table of CONTRIBUTING.md, read from there,
 * so that the table is the one statement of which folder may import which. Each row allows its own
 * paths and those its last column lists, each a backticked `src/` path; a row may list only rows
 * below it, since dependencies point one way, down the table. Anything the rows do not allow is an
 * error (`allowedSeverity`), besides packages and Node's own modules; a few rules of their own say
 * what the table cannot: no cycle, one module that knows Redis, nothing unresolvable.
 */
function layoutRows() {
  const text = readFileSync(join(__dirname, 'CONTRIBUTING.md'), 'utf8');
  const start = text.indexOf('## Layout');
  const section = text.slice(start, text.indexOf('\n## ', start + 1));
  const rows = section
    .split('\n')
    .filter((line) => line.startsWith('| `src/'))
    .map((line) => {
      const cells = line.split(' | ');
      const paths = (cell) => [...cell.matchAll(/`(src\/[^`]*)`/g)].map(([, path]) => path);
      return { paths: paths(cells[0]), mayImport: paths(cells.at(-1)) };
    });
  if (rows.length < 10) throw new Error('.dependency-cruiser.cjs: the layout table of CONTRIBUTING.md was not found.');
  rows.forEach((row, index) => {
    for (const path of row.mayImport) {
      const at = rows.findIndex((other) => other.paths.some((own) => own === path || (own.endsWith('/') && path.startsWith(own))));
      if (at === -1) throw new Error(`.dependency-cruiser.cjs: ${row.paths[0]} may import ${path}, which no row of the layout table names.`);
      if (at <= index) throw new Error(`.dependency-cruiser.cjs: ${row.paths[0]} may import ${path}, a row above it: dependencies point down the table.`);
    }
  });
  return rows;
}

/** A path of the table as a pattern: a folder and what is under it, or one file. */
const pattern = (path) => `^${path.replaceAll('.', '\\.')}${path.endsWith('/') ? '' : '$'}`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  allowed: [
    ...layoutRows().map(({ paths, mayImport }) => ({
      from: { path: paths.map(pattern).join('|') },
      to: { path: [...paths, ...mayImport].map(pattern).join('|') },
    })),
    { from: {}, to: { path: '^node_modules/' } },
    { from: {}, to: { dependencyTypes: ['core'] } },
  ],
  allowedSeverity: 'error',
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle makes the layering meaningless and the load order fragile.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'only-the-shared-state-knows-redis',
      comment: 'One module owns the Redis client, its timeouts, keys and failures (../shared/design/shared-state.md); the others hold stores.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/state/' },
      to: { path: 'node_modules/ioredis/' },
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
