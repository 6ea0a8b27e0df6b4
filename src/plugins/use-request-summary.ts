import { type ExecutionResult, type GraphQLError, getOperationAST } from 'graphql';
import { type GraphQLParams, isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { CallerContext } from '../context.js';
import { codeOf } from '../errors.js';
import { clientOf } from '../observability/client-identity.js';
import { requestIdOf } from '../observability/request-id.js';
import { type RequestSummary, recordedOperationName } from '../observability/request-summary.js';

/** What is learnt of one operation; a batched request has one per operation, in the batch's order. */
interface Operation {
  operationName?: string | undefined;
  operationType?: RequestSummary['operationType'];
  /** The operation's GraphQL context, from its parameters on: Yoga extends that same object to execute with. */
  context?: Partial<CallerContext>;
  /** Whether it reached execution (a cached answer or a refusal does not). */
  executed: boolean;
  hasData: boolean;
  errorCodes: string[];
}

interface Tracked {
  started: number;
  /** The batch's operations as parsed, or undefined for a single operation. */
  batch?: readonly GraphQLParams[];
  operations: Operation[];
  /** An answer in parts (`@defer`, `@stream`): what is learnt of it as its parts go out. */
  incremental?: { parts: number; firstPartMs: number; complete: boolean };
  /** Makes the summaries of an answer in parts once it has ended, with the response's status. */
  finish?: (status: number) => void;
}

const operation = (): Operation => ({ executed: false, hasData: false, errorCodes: [] });

export interface RequestSummaryOptions {
  /**
   * Called once per operation, when its response is ready: the log line and the metrics. `context`
   * is the operation's GraphQL context, for what other plugins learnt of it; undefined when the
   * request was refused before it had one.
   */
  onSummary: (summary: RequestSummary, context: object | undefined) => void;
}

/**
 * Calls `onSummary` once per operation of each request to the GraphQL endpoint (once for a single
 * request, once per operation of a batch, in order), after the response is ready. The records are
 * keyed by the Request and by each operation's context, so they live exactly as long as those.
 */
export function useRequestSummary({ onSummary }: RequestSummaryOptions): Plugin {
  const records = new WeakMap<Request, Tracked>();
  /** An operation's place in its batch, by its context; a context not here is a single operation's (0). */
  const batchIndexes = new WeakMap<object, number>();
  return {
    onRequestParse: ({ request }) => {
      const record: Tracked = { started: performance.now(), operations: [operation()] };
      records.set(request, record);
      return {
        onRequestParseDone: ({ requestParserResult }) => {
          if (!Array.isArray(requestParserResult)) return;
          record.batch = requestParserResult;
          record.operations = requestParserResult.map(operation);
        },
      };
    },
    onParams: ({ request, params, context }) => {
      const record = records.get(request);
      if (!record) return;
      // Only a batch marks its operations' contexts; a single operation is index 0.
      const index = record.batch ? Math.max(0, record.batch.indexOf(params)) : 0;
      if (record.batch) batchIndexes.set(context, index);
      const tracked = record.operations[index]!;
      tracked.context = context;
      if (params.operationName) tracked.operationName = recordedOperationName(params.operationName);
    },
    onExecute: ({ args }) => {
      const record = records.get(args.contextValue.request);
      const tracked = record?.operations[batchIndexes.get(args.contextValue) ?? 0];
      if (!tracked) return;
      const definition = getOperationAST(args.document, args.operationName);
      tracked.operationType = definition?.operation;
      tracked.operationName = recordedOperationName(definition?.name?.value);
      tracked.executed = true;
    },
    onResultProcess: ({ request, result, setResult }) => {
      const record = records.get(request);
      if (!record) return;
      if (isAsyncIterable(result)) {
        setResult(observedParts(record, result, request.signal, (status) => summarise(record, request, status)));
        return;
      }
      // A batch refused as a whole (over MAX_BATCH_SIZE) is answered with one result: one line, not one per operation.
      if (record.batch && !Array.isArray(result)) {
        record.batch = undefined;
        record.operations = [operation()];
      }
      const results = Array.isArray(result) ? result : [result];
      results.forEach((one, index) => {
        const tracked = record.operations[index];
        if (!tracked || Symbol.asyncIterator in one) return;
        const executed = one as ExecutionResult;
        if (executed.data && Object.values(executed.data).some((value) => value !== null)) tracked.hasData = true;
        noteErrors(tracked, executed.errors);
      });
    },
    onResponse: ({ request, response }) => {
      const record = records.get(request);
      if (!record) return;
      records.delete(request);
      // An answer in parts is summed up once its last part is out (or its client gone), not when its headers are.
      if (record.finish) record.finish(response.status);
      else summarise(record, request, response.status);
    },
  };

  function summarise(record: Tracked, request: Request, status: number): void {
    const durationMs = performance.now() - record.started;
    const size = record.batch?.length;
    const client = clientOf(request.headers);
    const requestId = requestIdOf(request);
    record.operations.forEach((tracked, index) => {
      const failed = tracked.errorCodes.length > 0 || status >= 400;
      const statuses = tracked.context?.caller?.upstreamStatuses ?? [];
      onSummary(
        {
          requestId,
          client,
          ...(size === undefined ? {} : { batch: { index, size } }),
          operationName: tracked.operationName,
          operationType: tracked.operationType,
          status,
          durationMs,
          ...(record.incremental ? { incremental: { ...record.incremental } } : {}),
          upstreamCalls: statuses.length,
          executed: tracked.executed,
          upstreamStatuses: statuses,
          outcome: !failed ? 'ok' : tracked.hasData ? 'partial' : 'error',
          errorCodes: tracked.errorCodes,
        },
        tracked.context,
      );
    });
  }
}

function noteErrors(tracked: Operation, errors: readonly GraphQLError[] | undefined): void {
  for (const error of errors ?? []) {
    const code = codeOf(error);
    if (!tracked.errorCodes.includes(code)) tracked.errorCodes.push(code);
  }
}

/** One part of an answer in parts: the first has `data` and `errors`, later ones `incremental` results with theirs. */
interface Part extends ExecutionResult {
  incremental?: ReadonlyArray<{ errors?: readonly GraphQLError[] }>;
}

/**
 * The parts of an incremental answer, unchanged, noted as they go out: their error codes, how many
 * and when the first. `finish` is called with the response's status once they have ended, been
 * closed, failed or their client has gone, whichever comes first, and never before the response.
 */
function observedParts<T extends Part>(
  record: Tracked,
  parts: AsyncIterable<T>,
  signal: AbortSignal,
  summarise: (status: number) => void,
): AsyncIterableIterator<T> {
  const tracked = record.operations[0]!;
  const incremental = { parts: 0, firstPartMs: 0, complete: false };
  record.incremental = incremental;
  let status: number | undefined;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    signal.removeEventListener('abort', end);
    if (status !== undefined) summarise(status);
  };
  record.finish = (responseStatus) => {
    status = responseStatus;
    if (ended) summarise(responseStatus);
  };
  signal.addEventListener('abort', end);
  const iterator = parts[Symbol.asyncIterator]();
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next(): Promise<IteratorResult<T>> {
      try {
        const step = await iterator.next();
        if (step.done) {
          incremental.complete = true;
          end();
          return step;
        }
        const part = step.value;
        if (incremental.parts++ === 0) {
          incremental.firstPartMs = performance.now() - record.started;
          if (part.data && Object.values(part.data).some((value) => value !== null)) tracked.hasData = true;
        }
        noteErrors(tracked, part.errors);
        for (const increment of part.incremental ?? []) noteErrors(tracked, increment.errors);
        return step;
      } catch (error) {
        end();
        throw error;
      }
    },
    async return(value?: unknown): Promise<IteratorResult<T>> {
      end();
      return (await iterator.return?.(value)) ?? { done: true, value: undefined };
    },
  };
}
