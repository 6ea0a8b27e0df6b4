import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { useDisableIntrospection } from '@graphql-yoga/plugin-disable-introspection';
import type { Plugin } from 'graphql-yoga';
import type { Limits } from './limits.js';
import { useLimits } from './plugins/use-limits.js';
import { useUpstreamBudget } from './plugins/use-upstream-budget.js';
import { useUpstreamShapeErrors } from './plugins/use-upstream-shape-errors.js';

/**
 * The plugins that defend the gateway against hostile or careless callers and a misbehaving
 * upstream, in the order they act: CSRF check on the raw request, operation limits while parsing
 * and validating, introspection off when configured, the upstream-call budget just before
 * execution, and precise errors for upstream records that do not fit the schema.
 */
export function securityPlugins(limits: Limits): Plugin[] {
  return [
    // Browsers may send "simple" requests (GET, form or text/plain POST) cross-site without a preflight: those must carry this header.
    useCSRFPrevention({ requestHeaders: ['x-graphql-yoga-csrf'] }) as Plugin,
    useLimits(limits),
    ...(limits.introspection ? [] : [useDisableIntrospection() as Plugin]),
    useUpstreamBudget(limits.maxUpstreamCalls),
    useUpstreamShapeErrors(),
  ];
}
