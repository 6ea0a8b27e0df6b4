import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import type { GraphQLFieldResolver } from 'graphql';
import type { GatewayContext } from '../context.js';
import { unauthenticated } from '../errors.js';

/**
 * Every root field reaches the upstream with the caller's token, so each one first checks that a
 * Bearer credential was sent. It wraps outside Pothos' argument mappers, so a missing token is
 * reported before any argument validation: an anonymous caller learns nothing about the input rules.
 * Introspection and `__typename` are not Pothos fields and stay open.
 */
class BearerPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapArgMappers(
    resolver: GraphQLFieldResolver<unknown, Types['Context'], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types['Context'], object> {
    if (fieldConfig.kind !== 'Query' && fieldConfig.kind !== 'Mutation') return resolver;
    return (parent, args, context, info) => {
      if ((context as GatewayContext).caller.authorization === null) throw unauthenticated();
      return resolver(parent, args, context, info);
    };
  }
}

declare global {
  export namespace PothosSchemaTypes {
    interface Plugins<Types extends SchemaTypes> {
      bearer: BearerPlugin<Types>;
    }
  }
}

SchemaBuilder.registerPlugin('bearer', BearerPlugin);

const pluginName = 'bearer' as const;
export default pluginName;
