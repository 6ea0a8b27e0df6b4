// Lints schema.graphql only (`npm run lint:schema`); TypeScript is checked by tsc.
import graphql from '@graphql-eslint/eslint-plugin';

export default [
  {
    files: ['schema.graphql'],
    languageOptions: {
      parser: graphql.parser,
      parserOptions: { graphQLConfig: { schema: 'schema.graphql' } },
    },
    plugins: { '@graphql-eslint': graphql },
    rules: {
      ...graphql.configs['flat/schema-recommended'].rules,
      ...graphql.configs['flat/schema-relay'].rules,
      // Paging is forward only: connections take first/after and nothing else is required.
      '@graphql-eslint/relay-arguments': ['error', { includeBoth: false }],
      // Records are not Relay Nodes (the upstream has no global ids), and `nodes` sits next to `edges`.
      '@graphql-eslint/relay-edge-types': ['error', { withEdgeSuffix: true, shouldImplementNode: false, listTypeCanWrapOnlyEdgeType: false }],
      // Connections, edges, payloads and PageInfo are wrappers, not records: they carry no id.
      '@graphql-eslint/strict-id-in-types': ['error', { exceptions: { types: ['PageInfo'], suffixes: ['Connection', 'Edge', 'Payload'] } }],
      '@graphql-eslint/require-description': [
        'error',
        {
          types: true,
          rootField: true,
          FieldDefinition: true,
          InputValueDefinition: true,
          EnumValueDefinition: true,
          DirectiveDefinition: true,
        },
      ],
    },
  },
];
