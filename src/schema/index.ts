import type { GraphQLSchema } from 'graphql';
import { builder } from './builder.js';
import { checkedEntities, literalRepresentations } from './entities.js';
import './audited-record.js';
import './api-key.js';
import './hotspot.js';
import './identity-provider.js';
import './category.js';
import './user.js';
import './service.js';
import './folder.js';

/** The gateway's schema, built once at start-up. */
export const schema = builder.toSchema();

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
