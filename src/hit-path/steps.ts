import { costOf, showsCost, textWithCost } from '../answer/cost.js';
import type { AnswerFinisher } from '../answer/finish.js';
import type { ForwardedHeader } from '../config/parsers.js';
import type { CostShown } from '../config/settings.js';
import { wholeResultType } from '../http/accept.js';
import { bearerCredential } from '../http/bearer.js';
import { asksFresh } from '../http/cache-control.js';
import { asksCost } from '../http/cost.js';
import { isOversized } from '../http/document-size.js';
import { forwardedHeaders } from '../http/forwarded-headers.js';
import { type RequestSummary, sumUp } from '../observability/request-summary.js';
import { recordedOperationName } from '../operation-record.js';
import { type CacheLookups, mayBeQuery, noteHit, requestKey } from '../state/cache-lookups.js';
import type { OperationCounter } from '../state/operation-counter.js';
import type { RateDecision } from '../state/operation-limiter.js';
import type { HitStep } from './hit-path.js';

/*
 * The steps of the hit path, one per plugin whose work a hit needs, each named for what it does and
 * made of the function the plugin's hook calls: src/gateway.ts puts each beside its plugin.
 */

/** useOperationRecords: names the operation as sent. */
export const namesOperation: HitStep = {
  read: ({ record, params }) => {
    record.operationName = recordedOperationName(params.operationName);
    return undefined;
  },
};

/** useContentNegotiation: a request whose Accept takes a whole result in JSON, which passes negotiation and is answered as one. */
export const takesWholeResult: HitStep = {
  admits: (req) => wholeResultType(req.headers.accept ?? null) !== undefined,
};

/** useDocumentCache: a document over MAX_DOCUMENT_BYTES is Yoga's to refuse. */
export function boundsDocument(maxDocumentBytes: number): HitStep {
  return { read: ({ params }) => !isOversized(params.query, maxDocumentBytes) };
}

/** useRateLimit: the operation counted once (Yoga finds the count of one it is handed), a refusal left to Yoga; its caller vouched for by a hit. */
export function countsOperation(counter: OperationCounter): HitStep {
  const allAllowed = (decisions: readonly RateDecision[]) => decisions.every((decision) => decision.allowed);
  return {
    read: ({ record, caller, headers, req }) => {
      const decisions = counter.count(record, caller, headers.get('x-forwarded-for'), req.socket.remoteAddress);
      // Counted in this process, the decisions come at once, and the hit pays for no promise.
      return decisions instanceof Promise ? decisions.then(allAllowed) : allAllowed(decisions);
    },
    answer: ({ record, caller }) => counter.settle(record, caller),
  };
}

/** useUpstreamHeaders: the headers the operation would send upstream (FORWARD_HEADERS), which the read cache keys on. */
export function forwardsHeaders(listed: readonly ForwardedHeader[]): HitStep {
  return {
    read: ({ record, headers }) => {
      if (listed.length > 0) record.forwardedHeaders = forwardedHeaders(headers, listed);
      return undefined;
    },
  };
}

/** useUpstreamDebug: a request that asks to see its upstream calls is Yoga's to answer. */
export const showsNoCalls: HitStep = {
  admits: (req) => req.headers['x-debug-upstream'] === undefined,
};

/** useIdempotency: a request that carries an Idempotency-Key is Yoga's to read, so that its key is checked in one place. */
export const carriesNoKey: HitStep = {
  admits: (req) => req.headers['idempotency-key'] === undefined,
};

/**
 * useResponseCache: a request with a Bearer credential that asks for no fresh answer, looked up once
 * (Yoga finds the lookup of a miss it is handed); a hit noted on its record as the plugin notes one.
 */
export function looksUp(lookups: CacheLookups): HitStep {
  return {
    admits: (req) => bearerCredential(req.headers.authorization ?? null) !== undefined && !asksFresh(req.headers['cache-control']),
    read: (hit) => {
      const { record, caller, params } = hit;
      if (!mayBeQuery(params.query)) return false;
      return lookups.lookUp(record, { caller, request: requestKey(params, record.forwardedHeaders?.headers) }).then(({ answer }) => {
        hit.found = answer;
        return answer !== undefined;
      });
    },
    answer: ({ record, found }) => noteHit(record, found),
  };
}

/** useOperationCost: the hit's cost (none: it made no call) in its answer, where the answer shows it. */
export function showsItsCost(costShown: CostShown): HitStep {
  return {
    answer: ({ record, headers, answer }) => {
      if (!showsCost(costShown, record, asksCost(headers.get('x-cost')))) return;
      answer.body = textWithCost(answer.body.toString(), costOf(record));
      answer.headers.set('content-length', String(Buffer.byteLength(answer.body)));
    },
  };
}

/** useRequestSummary: the answer's status noted, and the operation summed up for its log line and metrics. */
export function sumsUp(onSummary: (summary: RequestSummary) => void): HitStep {
  return {
    answer: ({ record, answer }) => {
      record.status = answer.status;
      sumUp(record, onSummary);
    },
  };
}

/** useAnswerFinishing: the answer finished as every answer is. */
export function finishes(finisher: AnswerFinisher): HitStep {
  return {
    answer: async ({ record, headers, answer }) => {
      const request = { method: 'POST', headers };
      finisher.headers(request, answer.headers, record.requestId, [record]);
      if (finisher.gzips(request, answer.headers)) answer.body = await finisher.gzipped(Buffer.from(answer.body), answer.headers);
    },
  };
}
