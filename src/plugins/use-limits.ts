import type { Plugin } from '@envelop/core';
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { memoize1 } from '@graphql-tools/utils';
import {
  BREAK,
  type DocumentNode,
  type GraphQLError,
  type GraphQLSchema,
  getIntrospectionQuery,
  getOperationAST,
  getVariableValues,
  Kind,
  parse,
  type ValidationContext,
  type ValidationRule,
  validate,
  visit,
} from 'graphql';
import { defaultSettings } from '../config/settings.js';
import { badUserInput, type LimitName, limitExceeded, refusedBeforeRunning } from '../errors.js';
import { recordOf } from '../operation-record.js';
import { incrementalDirectivesOf, isIncrementalDirective } from '../schema/incremental-delivery.js';

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
  /** `@defer` and `@stream` in an operation, the fragments it spreads included (MAX_INCREMENTAL_DIRECTIVES). @default 4 */
  maxIncrementalDirectives?: number;
  /** Largest `initialCount` of `@stream`: the longest list a field answers, since a larger one would stream nothing. @default no bound */
  maxInitialCount?: number;
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
 *
 * `@defer` and `@stream` have theirs, after armor's, where the schema declares them: at most
 * `maxIncrementalDirectives` of them in an operation, and an `initialCount` from 0 to
 * `maxInitialCount`, checked while validating, or before execution for one given as a variable of
 * an operation answered in parts (the operation record's `answeredInParts`: one given whole has its
 * directives taken out, and streams nothing). Both are LIMIT_EXCEEDED, naming `incrementalDirectives`
 * or `initialCount`.
 */
export function useLimits({
  maxDepth = DEFAULTS.maxDepth,
  maxAliases = DEFAULTS.maxAliases,
  maxTokens = DEFAULTS.maxTokens,
  maxDirectives = DEFAULTS.maxDirectives,
  maxCost = DEFAULTS.maxCost,
  maxIncrementalDirectives = DEFAULTS.maxIncrementalDirectives,
  maxInitialCount = Number.MAX_SAFE_INTEGER,
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
  const incremental = incrementalBoundsRule(maxIncrementalDirectives, maxInitialCount);
  let introspectionRule: ValidationRule | undefined;
  return {
    onPluginInit: ({ addPlugin }) => {
      addPlugin(armor);
      addPlugin({
        // Only where the schema declares them: a subgraph's leaves them to the router, and refuses them as unknown.
        onValidate: ({ addValidationRule, params }) => {
          if (params.schema.getDirective('stream')) addValidationRule(incremental);
        },
        // Only for an answer in parts: one given whole has its directives taken out (useIncrementalDelivery), and streams nothing.
        onExecute: ({ args, setResultAndStopExecution }) => {
          if (!recordOf(args.contextValue).answeredInParts) return;
          const error = initialCountFromVariables(args, maxInitialCount);
          if (error) setResultAndStopExecution({ errors: [refusedBeforeRunning(error)] });
        },
      });
    },
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

/**
 * Whether the document asks for `__schema` or `__type` anywhere (`__typename` is free and not
 * introspection here); per document, which Yoga keeps between requests (useDocumentCache), so the
 * walk is made once.
 */
const introspects = memoize1((document: DocumentNode): boolean => {
  let found = false;
  visit(document, {
    Field(node) {
      if (node.name.value !== '__schema' && node.name.value !== '__type') return;
      found = true;
      return BREAK;
    },
  });
  return found;
});

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

function incrementalBoundsRule(maxDirectives: number, maxInitialCount: number): ValidationRule {
  return (context) => ({
    OperationDefinition(operation) {
      let count = 0;
      const countIn = (node: Parameters<typeof visit>[0]) =>
        visit(node, {
          Directive(directive) {
            if (isIncrementalDirective(directive)) count++;
          },
        });
      countIn(operation);
      for (const fragment of context.getRecursivelyReferencedFragments(operation)) countIn(fragment);
      if (count > maxDirectives) {
        context.reportError(
          limitExceeded(
            'incrementalDirectives',
            maxDirectives,
            `This operation holds ${count} @defer and @stream directives, more than the ${maxDirectives} allowed (MAX_INCREMENTAL_DIRECTIVES).`,
          ),
        );
      }
    },
    Directive(directive) {
      if (directive.name.value !== 'stream') return;
      const value = directive.arguments?.find((argument) => argument.name.value === 'initialCount')?.value;
      if (value?.kind === Kind.INT) {
        const error = initialCountError(Number(value.value), maxInitialCount);
        if (error) context.reportError(error);
      }
    },
  });
}

function initialCountError(initialCount: number, max: number): GraphQLError | undefined {
  if (initialCount >= 0 && initialCount <= max) return undefined;
  return limitExceeded('initialCount', max, `The initialCount of @stream must be 0 to ${max}, the longest list a field answers.`);
}

/** An `initialCount` of `@stream` given as a variable, read as execution will read it. */
function initialCountFromVariables(
  args: {
    schema: Parameters<typeof getVariableValues>[0];
    document: DocumentNode;
    operationName?: string | null | undefined;
    variableValues?: unknown;
  },
  max: number,
): GraphQLError | undefined {
  const names = incrementalDirectivesOf(args.document).flatMap((directive) => {
    const value = directive.arguments?.find((argument) => argument.name.value === 'initialCount')?.value;
    return directive.name.value === 'stream' && value?.kind === Kind.VARIABLE ? [value.name.value] : [];
  });
  if (names.length === 0) return undefined;
  const operation = getOperationAST(args.document, args.operationName);
  const coerced = getVariableValues(
    args.schema,
    operation?.variableDefinitions ?? [],
    (args.variableValues ?? {}) as Record<string, unknown>,
  );
  // Variables that do not fit are execution's to report.
  if (coerced.errors) return undefined;
  for (const name of names) {
    const value = coerced.coerced[name];
    // A nullable variable in the place of the non-null `initialCount`: the executor would fail the field without a code.
    if (value === null) return badUserInput(`The initialCount of @stream must be a number: $${name} is null.`);
    if (typeof value === 'number') {
      const error = initialCountError(value, max);
      if (error) return error;
    }
  }
  return undefined;
}
