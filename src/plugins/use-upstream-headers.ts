import type { ExecutionResult } from 'graphql';
import { isAsyncIterable, mapAsyncIterator, type Plugin } from 'graphql-yoga';
import { laterHeaders } from '../answer/returned-headers.js';
import type { ForwardedHeader } from '../config/parsers.js';
import { forwardedHeaders } from '../http/forwarded-headers.js';
import { recordOf, requestRecords } from '../operation-record.js';

export interface UpstreamHeadersOptions {
  /** Client request headers sent upstream with every call, under their upstream names (FORWARD_HEADERS). @default [] */
  forwardHeaders?: readonly ForwardedHeader[];
  /** Upstream answer headers returned to the client, merged (RETURN_HEADERS). @default [] */
  returnHeaders?: readonly string[];
}

/**
 * Headers both ways between the client and the REST API, through the operations' records.
 *
 * - Forwarded: the listed client headers (`forwardedHeaders`) are put on the operation's record,
 *   which its Caller sends with every upstream call; a value that could not be sent on is dropped
 *   and counted (the request is served all the same).
 * - Returned: the listed headers of every upstream answer are given to the response where every
 *   answer is finished (`returnedHeaders`, src/answer/returned-headers.ts). An answer in parts
 *   carries there the headers of the calls made before it went out; this plugin puts the later
 *   ones, merged the same way, into its last part's `extensions.upstreamHeaders`.
 */
export function useUpstreamHeaders({ forwardHeaders = [], returnHeaders = [] }: UpstreamHeadersOptions = {}): Plugin {
  return {
    onParams: ({ request, context }) => {
      if (forwardHeaders.length > 0) recordOf(context).forwardedHeaders = forwardedHeaders(request.headers, forwardHeaders);
    },
    onResultProcess: ({ result, setResult, serverContext }) => {
      const [record] = requestRecords(serverContext);
      if (returnHeaders.length === 0 || !record || !isAsyncIterable(result)) return;
      setResult(
        mapAsyncIterator(result, (part: ExecutionResult & { hasNext?: boolean }) => {
          if (part.hasNext !== false) return part;
          const headers = laterHeaders(record, returnHeaders);
          return Object.keys(headers).length === 0 ? part : { ...part, extensions: { ...part.extensions, upstreamHeaders: headers } };
        }),
      );
    },
  };
}
