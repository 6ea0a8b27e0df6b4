import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import {
  type DirectiveNode,
  type DocumentNode,
  GraphQLError,
  getOperationAST,
  getVariableValues,
  Kind,
  type ValidationRule,
  visit,
} from 'graphql';
import { isAsyncIterable, mapAsyncIterator, maskError, type Plugin } from 'graphql-yoga';
import { defaultSettings } from '../config/settings.js';
import { limitExceeded, refusedBeforeRunning, withErrorsMapped } from '../errors.js';
import { acceptsAnyOf } from '../http/accept.js';
import { incrementalDirectivesOf, isIncrementalDirective } from '../schema/incremental-delivery.js';

export interface IncrementalDeliveryOptions {
  /** `@defer` and `@stream` in an operation, the fragments it spreads included (MAX_INCREMENTAL_DIRECTIVES). @default 4 */
  maxIncrementalDirectives?: number;
  /** Largest `initialCount` of `@stream`: the longest list a field answers, since a larger one would stream nothing. */
  maxInitialCount: number;
}

const DEFAULTS = defaultSettings();

/** The media types Yoga answers an incremental result with (its multipart and SSE result processors). */
const INCREMENTAL_TYPES = ['multipart/mixed', 'text/event-stream'];

/** What Yoga's error masking (`maskedErrors`) says in place of an unexpected error. */
const MASKED_MESSAGE = 'Unexpected error.';

/**
 * `@defer` and `@stream` (Yoga's defer-stream plugin: its validation rules, and the executor's
 * incremental results), answered in parts as `multipart/mixed`, or `text/event-stream` to a client
 * that asks for it. The schema declares both directives (src/schema/incremental-delivery.ts).
 *
 * - Bounds, while validating: at most `maxIncrementalDirectives` of them in an operation, and an
 *   `initialCount` from 0 to `maxInitialCount` (one given as a variable is checked before
 *   execution). Both are LIMIT_EXCEEDED, naming `incrementalDirectives` or `initialCount`.
 * - An answer that cannot come in parts is given whole: for an operation in a batch (answered as
 *   one JSON array) or a client whose Accept header takes neither media type, the directives are
 *   taken out of the document before it runs, exactly as if each said `if: false`. Left to Yoga,
 *   the operation would run, upstream calls and all, for an answer of 406.
 * - An operation that streams gets the request's signal, so that the executor stops, and closes the
 *   lists it is streaming, when the client goes away.
 * - Yoga masks unexpected errors in a result's `errors` alone; those in the increments of later
 *   parts are masked here, the same way.
 * - An answer in parts says `X-Accel-Buffering: no`, so that an nginx in front passes each part on.
 */
export function useIncrementalDelivery({
  maxIncrementalDirectives = DEFAULTS.maxIncrementalDirectives,
  maxInitialCount,
}: IncrementalDeliveryOptions): Plugin {
  const batches = new WeakSet<Request>();
  const bounds = boundsRule(maxIncrementalDirectives, maxInitialCount);
  return {
    onPluginInit: ({ addPlugin }) => addPlugin(useDeferStream() as Plugin),
    onRequestParse: ({ request }) => ({
      onRequestParseDone: ({ requestParserResult }) => {
        if (Array.isArray(requestParserResult)) batches.add(request);
      },
    }),
    onValidate: ({ addValidationRule }) => addValidationRule(bounds),
    onExecute: ({ args, setResultAndStopExecution }) => {
      const directives = incrementalDirectivesOf(args.document);
      if (directives.length === 0) return;
      const { request } = args.contextValue as { request: Request };
      if (batches.has(request) || !acceptsAnyOf(request.headers.get('accept'), INCREMENTAL_TYPES)) {
        args.document = withoutIncrementalDirectives(args.document);
        return;
      }
      const error = initialCountFromVariables(args, directives, maxInitialCount);
      if (error) {
        setResultAndStopExecution({ errors: [refusedBeforeRunning(error)] });
        return;
      }
      (args as { signal?: AbortSignal }).signal = request.signal;
    },
    onResultProcess: ({ result, setResult }) => {
      if (isAsyncIterable(result)) setResult(mapAsyncIterator(result, withIncrementsMasked));
    },
    onResponse: ({ response }) => {
      // nginx (and ingress-nginx) buffer a proxied answer whole by default; this header asks them, per answer, not to.
      if (/^(multipart\/mixed|text\/event-stream)/.test(response.headers.get('content-type') ?? '')) {
        response.headers.set('x-accel-buffering', 'no');
      }
    },
  };
}

function boundsRule(maxDirectives: number, maxInitialCount: number): ValidationRule {
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

/** An `initialCount` given as a variable, read as execution will read it. */
function initialCountFromVariables(
  args: {
    schema: Parameters<typeof getVariableValues>[0];
    document: DocumentNode;
    operationName?: string | null;
    variableValues?: unknown;
  },
  directives: readonly DirectiveNode[],
  max: number,
): GraphQLError | undefined {
  const names = directives.flatMap((directive) => {
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
    if (typeof value === 'number') {
      const error = initialCountError(value, max);
      if (error) return error;
    }
  }
  return undefined;
}

/** Each document without its `@defer` and `@stream`, made once and released with it. */
const whole = new WeakMap<DocumentNode, DocumentNode>();

function withoutIncrementalDirectives(document: DocumentNode): DocumentNode {
  let copy = whole.get(document);
  if (copy === undefined) {
    copy = visit(document, { Directive: (node) => (isIncrementalDirective(node) ? null : undefined) });
    whole.set(document, copy);
  }
  return copy;
}

/**
 * A part of an answer in parts with the errors of its increments masked, and without the
 * extensions Yoga keeps for itself (`http`, `unexpected`), which it drops from a result's own
 * `errors` alone. Those are Yoga's to mask.
 */
function withIncrementsMasked<T>(part: T): T {
  const { incremental } = part as { incremental?: ReadonlyArray<{ errors?: readonly GraphQLError[] }> };
  if (!incremental) return part;
  const masked = withErrorsMapped({ incremental }, (errors) => errors.map(published));
  return masked ? { ...part, incremental: masked.incremental } : part;
}

function published(error: GraphQLError): GraphQLError {
  const masked = maskError(error, MASKED_MESSAGE, false) as GraphQLError;
  const { http, unexpected, ...extensions } = masked.extensions;
  if (http === undefined && unexpected === undefined) return masked;
  return new GraphQLError(masked.message, {
    nodes: masked.nodes,
    source: masked.source,
    positions: masked.positions,
    path: masked.path,
    originalError: masked.originalError,
    extensions,
  });
}
