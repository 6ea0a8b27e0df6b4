import type { Plugin } from 'graphql-yoga';
import type { AnswerFinisher } from '../answer/finish.js';
import { requestIdOf } from '../http/request-id.js';
import { requestRecords } from '../operation-record.js';

/**
 * Finishes every answer Yoga writes, `/health` and `/ready` included, as every answer of the
 * gateway is finished (`AnswerFinisher`): its headers, then its body gzipped where it should be.
 * Last of the plugins: the answer is finished once every other has amended it, and a gzipped body
 * is made anew from the final one.
 */
export function useAnswerFinishing(finisher: AnswerFinisher): Plugin {
  return {
    onResponse: async ({ request, response, serverContext, setResponse, fetchAPI }) => {
      const { headers } = response;
      finisher.headers(request, headers, requestIdOf(request), requestRecords(serverContext));
      if (!finisher.gzips(request, headers)) return;
      const body = await finisher.gzipped(await response.arrayBuffer(), headers);
      setResponse(new fetchAPI.Response(body, { status: response.status, statusText: response.statusText, headers }));
    },
  };
}
