// The example operations as an Apollo Client app registers them: `npm run schema:write` runs Apollo's
// generator (@apollo/generate-persisted-query-manifest) with this file, beside graphql-codegen's
// persisted documents (codegen.ts), and `npm run check` hands both manifests to
// `npm run schema:breaking`. The generator builds an Apollo Client 4 without an incremental
// handler, which refuses `@defer` and `@stream`, so the one streamed operation is left out.
module.exports = {
  documents: ['examples/operations/*.graphql', '!examples/operations/streamed-api-keys.graphql'],
  output: 'examples/generated/persisted-query-manifest.json',
};
