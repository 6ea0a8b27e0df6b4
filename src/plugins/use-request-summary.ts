import { type ExecutionResult, getOperationAST } from 'graphql';
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import type { CallerContext } from '../context.js';
import { codeOf } from '../errors.js';
import { clientOf } from '../observability/client-identity.js';
import { requestIdOf } from '../observability/request-id.js';
import { type RequestSummary, recordedOperationName } from '../observability/request-summary.js';

/** What is learnt of one operation; a batched request has one per operation, in the batch's order. */
interface Operation {
  operationName?: string | undefined;
  operationType?: RequestSummary['operationType'];
  context?: Partial<CallerContext>;
  /** The context the operation's parameters came with, which the one it executes with extends. */
  paramsContext?: object;
  hasData: boolean;
  errorCodes: string[];
}

interface Tracked {
  started: number;
  /** The batch's operations as parsed, or undefined for a single operation. */
  batch?: readonly GraphQLParams[];
  operations: Operation[];
}

const operation = (): Operation => ({ hasData: false, errorCodes: [] });

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
      tracked.paramsContext = context;
      if (params.operationName) tracked.operationName = recordedOperationName(params.operationName);
    },
    onExecute: ({ args }) => {
      const record = records.get(args.contextValue.request);
      const tracked = record?.operations[batchIndexes.get(args.contextValue) ?? 0];
      if (!tracked) return;
      const definition = getOperationAST(args.document, args.operationName);
      tracked.operationType = definition?.operation;
      tracked.operationName = recordedOperationName(definition?.name?.value);
      tracked.context = args.contextValue as Partial<CallerContext>;
    },
    onResultProcess: ({ request, result }) => {
      const record = records.get(request);
      if (!record) return;
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
        for (const error of executed.errors ?? []) {
          const code = codeOf(error);
          if (!tracked.errorCodes.includes(code)) tracked.errorCodes.push(code);
        }
      });
    },
    onResponse: ({ request, response }) => {
      const record = records.get(request);
      if (!record) return;
      records.delete(request);
      const durationMs = performance.now() - record.started;
      const size = record.batch?.length;
      const client = clientOf(request.headers);
      const requestId = requestIdOf(request);
      record.operations.forEach((tracked, index) => {
        const failed = tracked.errorCodes.length > 0 || response.status >= 400;
        const statuses = tracked.context?.caller?.upstreamStatuses ?? [];
        onSummary(
          {
            requestId,
            client,
            ...(size === undefined ? {} : { batch: { index, size } }),
            operationName: tracked.operationName,
            operationType: tracked.operationType,
            status: response.status,
            durationMs,
            upstreamCalls: statuses.length,
            executed: tracked.context !== undefined,
            upstreamStatuses: statuses,
            outcome: !failed ? 'ok' : tracked.hasData ? 'partial' : 'error',
            errorCodes: tracked.errorCodes,
          },
          tracked.paramsContext,
        );
      });
    },
  };
}
