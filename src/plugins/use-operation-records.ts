import { GraphQLError, getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { ErrorCode } from '../errors.js';
import { clientOf } from '../http/client-identity.js';
import { adoptRequestId, requestIdOf } from '../http/request-id.js';
import {
  holdRecord,
  OperationRecord,
  openBatchRecords,
  openedBeforeYoga,
  openRecord,
  recordedOperationName,
  recordOf,
} from '../operation-record.js';

/**
 * Opens the record of each operation (src/operation-record.ts) when its request's parsing begins,
 * before any plugin can refuse it (or adopts the one the hit path opened, when it read the request
 * first): one per request, or one per operation of a
 * batch once it is parsed, each held by the operation's context from its parameters on. It writes
 * what names the operation: its name as sent, then, when it runs, its name and type as the document
 * says. Every plugin after it reads and writes the record; useRequestSummary hands it on. Parameters
 * that are no JSON object (`null` in a batch) are refused here, 400 `BAD_REQUEST`, as Yoga refuses
 * them, but before the plugins that read them.
 */
export function useOperationRecords(): Plugin {
  return {
    onRequestParse: ({ request, serverContext }) => {
      const opened = openedBeforeYoga(serverContext);
      if (opened) adoptRequestId(request, opened.requestId);
      openRecord(serverContext, opened ?? new OperationRecord(requestIdOf(request), clientOf(request.headers)));
      return {
        onRequestParseDone: ({ requestParserResult }) => {
          if (Array.isArray(requestParserResult)) openBatchRecords(serverContext, requestParserResult);
        },
      };
    },
    onParams: ({ params, context }) => {
      // Yoga checks the parameters after every plugin, which all read them as an object: one that is not (a batch holding `null`) is refused first.
      if (typeof params !== 'object' || params === null || Array.isArray(params)) throw notAnOperation(params);
      const record = holdRecord(context, params);
      if (params.operationName) record.operationName = recordedOperationName(params.operationName);
    },
    onExecute: ({ args }) => {
      const record = recordOf(args.contextValue);
      const definition = getOperationAST(args.document, args.operationName);
      record.operationType = definition?.operation;
      record.operationName = recordedOperationName(definition?.name?.value);
      record.executed = true;
    },
  };
}

/** Yoga's own refusal of parameters that are not an object, made before any plugin reads them. */
function notAnOperation(params: unknown): GraphQLError {
  const type = params === null ? 'null' : Array.isArray(params) ? 'array' : typeof params;
  return new GraphQLError(`Expected params to be an object but given ${type}.`, {
    extensions: { code: ErrorCode.BAD_REQUEST, http: { status: 400 } },
  });
}
