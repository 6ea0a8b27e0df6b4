import { type ExecutionResult, getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { CallerContext } from '../context.js';
import { codeOf } from '../errors.js';
import { requestIdOf } from '../observability/request-id.js';
import type { RequestSummary } from '../observability/request-summary.js';

interface Tracked {
  started: number;
  operationName?: string | undefined;
  operationType?: RequestSummary['operationType'];
  context?: Partial<CallerContext>;
  hasData: boolean;
  errorCodes: string[];
}

/**
 * Calls `listener` once per request to the GraphQL endpoint, after its response is ready. The
 * record is keyed by the Request itself, so it lives exactly as long as the request.
 */
export function useRequestSummary(listener: (summary: RequestSummary) => void): Plugin {
  const records = new WeakMap<Request, Tracked>();
  return {
    onRequestParse: ({ request }) => {
      records.set(request, { started: performance.now(), hasData: false, errorCodes: [] });
    },
    onParams: ({ request, params }) => {
      const record = records.get(request);
      if (record && params.operationName) record.operationName = params.operationName;
    },
    onExecute: ({ args }) => {
      const record = records.get(args.contextValue.request);
      if (!record) return;
      const operation = getOperationAST(args.document, args.operationName);
      record.operationType = operation?.operation;
      record.operationName = operation?.name?.value;
      record.context = args.contextValue as Partial<CallerContext>;
    },
    onResultProcess: ({ request, result }) => {
      const record = records.get(request);
      if (!record) return;
      for (const one of Array.isArray(result) ? result : [result]) {
        if (Symbol.asyncIterator in one) continue;
        const executed = one as ExecutionResult;
        if (executed.data && Object.values(executed.data).some((value) => value !== null)) record.hasData = true;
        for (const error of executed.errors ?? []) {
          const code = codeOf(error);
          if (!record.errorCodes.includes(code)) record.errorCodes.push(code);
        }
      }
    },
    onResponse: ({ request, response }) => {
      const record = records.get(request);
      if (!record) return;
      records.delete(request);
      const failed = record.errorCodes.length > 0 || response.status >= 400;
      listener({
        requestId: requestIdOf(request),
        operationName: record.operationName,
        operationType: record.operationType,
        status: response.status,
        durationMs: performance.now() - record.started,
        upstreamCalls: record.context?.caller?.upstreamCalls ?? 0,
        executed: record.context !== undefined,
        upstreamAccepted: record.context?.caller?.upstreamAccepted ?? false,
        outcome: !failed ? 'ok' : record.hasData ? 'partial' : 'error',
        errorCodes: record.errorCodes,
      });
    },
  };
}
