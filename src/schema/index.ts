import { type GraphQLSchema, specifiedDirectives } from 'graphql';
import { builder } from './builder.js';
import { checkedEntities, literalRepresentations } from './entities.js';
import { deferDirective, streamDirective } from './incremental-delivery.js';
import './audited-record.js';
import { MAX_FIRST } from './api-key.js';
import './hotspot.js';
import './identity-provider.js';
import './category.js';
import './user.js';
import './service.js';
import './folder.js';

/** The largest `initialCount` of `@stream`: the longest list one field answers. Larger would stream nothing. */
export const MAX_INITIAL_COUNT = MAX_FIRST;

/** The gateway's schema, built once at start-up, with `@defer` and `@stream` (src/schema/incremental-delivery.ts says why). */
export const schema = builder.toSchema({
  directives: [...specifiedDirectives, deferDirective, streamDirective(MAX_INITIAL_COUNT)],
});

/** Federation version of the `@link` in the subgraph SDL. */
const FEDERATION_LINK = 'https://specs.apollo.dev/federation/v2.6';

let subgraph: GraphQLSchema | undefined;

/**
 * The same schema as a Federation 2 subgraph (FEDERATION=true): `_service`, `_entities` (its
 * representations checked, `checkedEntities`, and read from a literal without variables,
 * `literalRepresentations`), `@key` on the records and `@shareable` on PageInfo.
 * Built on first use, since most deployments never need it.
 */
export function subgraphSchema(): GraphQLSchema {
  subgraph ??= literalRepresentations(checkedEntities(builder.toSubGraphSchema({ linkUrl: FEDERATION_LINK })));
  return subgraph;
}
