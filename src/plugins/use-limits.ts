import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import type { GraphQLError, ValidationContext } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Settings } from '../config/settings.js';
import { type LimitName, limitExceeded } from '../errors.js';

/**
 * Operation limits (graphql-armor): depth, aliases, tokens, directives and cost, checked while
 * parsing and validating, before anything runs. Armor's own rejections carry no error code, so each
 * is re-issued as LIMIT_EXCEEDED naming the limit. Field suggestions ("Did you mean ...?") are
 * masked unless `fieldSuggestions` is on, so a stranger cannot map the schema by typos.
 */
export function useLimits(
  limits: Pick<Settings, 'maxDepth' | 'maxAliases' | 'maxTokens' | 'maxDirectives' | 'maxCost' | 'fieldSuggestions'>,
): Plugin {
  return EnvelopArmorPlugin({
    maxDepth: { n: limits.maxDepth, ...reject('depth', limits.maxDepth) },
    maxAliases: { n: limits.maxAliases, ...reject('aliases', limits.maxAliases) },
    maxTokens: { n: limits.maxTokens, ...reject('tokens', limits.maxTokens) },
    maxDirectives: { n: limits.maxDirectives, ...reject('directives', limits.maxDirectives) },
    costLimit: { maxCost: limits.maxCost, ...reject('cost', limits.maxCost) },
    blockFieldSuggestion: { enabled: !limits.fieldSuggestions },
  }) as Plugin;
}

/** Validation rules report through their context; the token limit runs in the parser, where throwing is the way out. */
function reject(limit: LimitName, max: number) {
  return {
    propagateOnRejection: false,
    onReject: [
      (context: ValidationContext | null, error: GraphQLError) => {
        const limited = limitExceeded(limit, max, error.message.replace(/^Syntax Error: /, ''));
        if (context) context.reportError(limited);
        else throw limited;
      },
    ],
  };
}
