/**
 * `npm run schema:write` writes everything generated from the schema: schema.graphql (for clients and
 * the schema lint), subgraph.graphql (for a Federation router) and the typed documents of the example client, with their trusted-documents
 * manifest. `npm run schema:check` fails when any of it is stale.
 */

import { printSubgraphSchema } from '@apollo/subgraph';
import type { CodegenConfig } from '@graphql-codegen/cli';
import { printSchema } from 'graphql';
import { schema, subgraphSchema } from './src/schema/index.js';

const config: CodegenConfig = {
  // The code-first schema itself, not a file, so codegen never reads a stale schema.graphql.
  schema: printSchema(schema),
  documents: ['examples/operations/*.graphql'],
  ignoreNoDocuments: false,
  generates: {
    'schema.graphql': {
      // printSchema plus a final newline, byte for byte what test/core/schema.test.ts compares
      // (schema-ast would drop the newline).
      plugins: [{ add: { placement: 'content', content: `${printSchema(schema)}\n` } }],
    },
    // The subgraph SDL a router composes (FEDERATION=true), what `_service { sdl }` answers.
    'subgraph.graphql': {
      plugins: [{ add: { placement: 'content', content: `${printSubgraphSchema(subgraphSchema())}\n` } }],
    },
    'examples/generated/': {
      preset: 'client',
      presetConfig: {
        fragmentMasking: { unmaskFunctionName: 'getFragmentData' },
        persistedDocuments: { mode: 'embedHashInDocument', hashAlgorithm: 'sha256' },
      },
      config: {
        useTypeImports: true,
        emitLegacyCommonJSImports: false,
        enumsAsTypes: true,
        scalars: { DateTime: 'string' },
      },
    },
  },
};

export default config;
