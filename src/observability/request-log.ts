import { ErrorCode, UPSTREAM_FAULTS } from '../errors.js';
import type { UpstreamCall } from '../upstream/client.js';
import type { Logger } from './logger.js';
import type { RequestSummary } from './request-summary.js';

/** One line per GraphQL request; the level says whether an operator has anything to look at. */
export function logRequest(logger: Logger): (summary: RequestSummary) => void {
  return (summary) => {
    logger[levelOf(summary)](
      {
        requestId: summary.requestId,
        ...(summary.batch ? { batch: summary.batch } : {}),
        clientName: summary.client.name ?? null,
        clientVersion: summary.client.version ?? null,
        operationName: summary.operationName ?? null,
        operationType: summary.operationType ?? null,
        status: summary.status,
        durationMs: round(summary.durationMs),
        ...(summary.incremental ? { incremental: { ...summary.incremental, firstPartMs: round(summary.incremental.firstPartMs) } } : {}),
        upstreamCalls: summary.upstreamCalls,
        estimatedCalls: summary.estimatedCalls ?? null,
        outcome: summary.outcome,
        errorCodes: summary.errorCodes,
        ...(summary.cache ? { cache: summary.cache } : {}),
        // What became of the key, never the key.
        ...(summary.idempotency ? { idempotency: summary.idempotency } : {}),
      },
      'graphql request',
    );
  };
}

/** One debug line per upstream call, for the UpstreamClient's `onCall`. */
export function logUpstreamCall(logger: Logger): (call: UpstreamCall) => void {
  return (call) => {
    if (!logger.isLevelEnabled('debug')) return;
    logger.debug(
      {
        requestId: call.requestId,
        method: call.method,
        route: call.route,
        status: call.status ?? null,
        durationMs: round(call.durationMs),
        errorCode: call.errorCode ?? null,
      },
      'upstream call',
    );
  };
}

/** A gateway fault is an error, an upstream fault a warning; the caller's own mistakes, and a caller that left, are routine. */
function levelOf({ errorCodes, outcome }: RequestSummary): 'error' | 'warn' | 'info' {
  if (outcome === 'client_closed') return 'info';
  if (errorCodes.includes(ErrorCode.INTERNAL_SERVER_ERROR)) return 'error';
  if (errorCodes.some((code) => UPSTREAM_FAULTS.has(code))) return 'warn';
  return 'info';
}

const round = (ms: number) => Math.round(ms * 10) / 10;
