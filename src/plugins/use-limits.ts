import type { Plugin } from '@envelop/core';
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import {
  BREAK,
  type DocumentNode,
  type GraphQLError,
  type GraphQLSchema,
  getIntrospectionQuery,
  parse,
  type ValidationContext,
  type ValidationRule,
  validate,
  visit,
} from 'graphql';
import { defaultSettings } from '../config/settings.js';
import { type LimitName, limitExceeded } from '../errors.js';

export interface LimitsOptions {
  /** Selection depth of an operation (MAX_DEPTH). @default 8 */
  maxDepth?: number;
  /** Aliases in an operation (MAX_ALIASES). @default 15 */
  maxAliases?: number;
  /** Lexical tokens in the document, counted while parsing (MAX_TOKENS). @default 1000 */
  maxTokens?: number;
  /** Directives in an operation (MAX_DIRECTIVES). @default 10 */
  maxDirectives?: number;
  /** Cost of an operation, by the formula below (MAX_COST). @default 20000 */
  maxCost?: number;
}

const DEFAULTS = defaultSettings();

/** The cost formula of MAX_COST; armor skips `__schema` unless told otherwise. */
const COST = { objectCost: 2, scalarCost: 1, depthCostFactor: 1.5 } as const;

/**
 * Operation limits (graphql-armor): depth, aliases, tokens, directives and cost, checked while
 * parsing and validating, before anything runs. Armor's own rejections carry no error code, so each
 * is re-issued as LIMIT_EXCEEDED naming the limit.
 *
 * Introspection has bounds of its own, since armor leaves `__schema` out of depth and cost: graphql-js'
 * MaxIntrospectionDepthRule, one of its specified rules (no type's fields listed three deep), and a cost, `__schema` included,
 * of at most twice that of the fullest standard introspection query on this schema, so every tool's
 * introspection runs while fifteen aliased copies of it do not. It is derived rather than set, so
 * it grows with the schema.
 */
export function useLimits({
  maxDepth = DEFAULTS.maxDepth,
  maxAliases = DEFAULTS.maxAliases,
  maxTokens = DEFAULTS.maxTokens,
  maxDirectives = DEFAULTS.maxDirectives,
  maxCost = DEFAULTS.maxCost,
}: LimitsOptions = {}): Plugin {
  const armor = EnvelopArmorPlugin({
    maxDepth: { n: maxDepth, ...reject('depth', maxDepth) },
    maxAliases: { n: maxAliases, ...reject('aliases', maxAliases) },
    maxTokens: { n: maxTokens, ...reject('tokens', maxTokens) },
    maxDirectives: { n: maxDirectives, ...reject('directives', maxDirectives) },
    costLimit: { maxCost, ...COST, ...reject('cost', maxCost) },
    // Suggestions of every kind are hidden by useHiddenSuggestions, in one place.
    blockFieldSuggestion: { enabled: false },
  });
  let introspectionRule: ValidationRule | undefined;
  return {
    onPluginInit: ({ addPlugin }) => addPlugin(armor),
    onValidate: ({ addValidationRule, params }) => {
      // Only operations that introspect: the others are held to MAX_COST, and must not also be told of introspection's bound.
      if (!introspects(params.documentAST)) return;
      if (!introspectionRule) {
        const max = Math.max(maxCost, 2 * fullIntrospectionCost(params.schema));
        introspectionRule = costLimitRule({ maxCost: max, ...COST, ignoreIntrospection: false, ...reject('introspectionCost', max) });
      }
      addValidationRule(introspectionRule);
    },
  };
}

/** Per document, which Yoga keeps between requests (useDocumentCache): the walk is made once. */
const introspecting = new WeakMap<DocumentNode, boolean>();

/** Whether the document asks for `__schema` or `__type` anywhere (`__typename` is free and not introspection here). */
function introspects(document: DocumentNode): boolean {
  const known = introspecting.get(document);
  if (known !== undefined) return known;
  let found = false;
  visit(document, {
    Field(node) {
      if (node.name.value !== '__schema' && node.name.value !== '__type') return;
      found = true;
      return BREAK;
    },
  });
  introspecting.set(document, found);
  return found;
}

/** The standard introspection query with every option on: the largest any tool sends. */
export const FULLEST_INTROSPECTION_QUERY = getIntrospectionQuery({
  descriptions: true,
  specifiedByUrl: true,
  directiveIsRepeatable: true,
  schemaDescription: true,
  inputValueDeprecation: true,
  oneOf: true,
});

/** The cost, `__schema` included, of the fullest introspection query. */
function fullIntrospectionCost(schema: GraphQLSchema): number {
  const query = FULLEST_INTROSPECTION_QUERY;
  let cost = 0;
  const measure = costLimitRule({
    maxCost: Number.MAX_SAFE_INTEGER,
    ...COST,
    ignoreIntrospection: false,
    onAccept: [(_, { n }) => (cost = n)],
  });
  validate(schema, parse(query), [measure]);
  return Math.ceil(cost);
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
