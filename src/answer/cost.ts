import type { ExecutionResult } from 'graphql';
import type { CostShown } from '../config/settings.js';
import type { OperationRecord } from '../operation-record.js';

/** `extensions.cost` of an answer: the REST calls its operation was estimated to make before it ran, and those it made. */
export interface Cost {
  estimatedCalls: number;
  actualCalls: number;
}

/**
 * Whether an answer shows its cost: always (COST_SHOWN=always, the default outside production), or
 * to a request that asks with `X-Cost: 1` (`asksCost`) or sees its upstream calls (`X-Debug-Upstream`,
 * with the key in production).
 */
export const showsCost = (shown: CostShown, record: OperationRecord, asked: boolean) =>
  shown === 'always' || asked || record.debug?.show === true;

/** What an operation cost, from its record: a refusal or a read cache hit made no call and was estimated none. */
export const costOf = (record: OperationRecord): Cost => ({
  estimatedCalls: record.estimatedCalls ?? 0,
  actualCalls: record.upstreamCalls.length,
});

/** A result, or the text of one (a stored answer's), with `extensions.cost`. */
export function withCost<T extends ExecutionResult>(result: T, cost: Cost): T {
  const stored = (result as { stringify?: (value: unknown) => string }).stringify;
  if (stored) return { ...result, stringify: (value: unknown) => textWithCost(stored(value), cost) };
  return { ...result, extensions: { ...result.extensions, cost } };
}

/** An answer's JSON text with `extensions.cost` (the hit path's, whose answer is a stored text). */
export function textWithCost(text: string, cost: Cost): string {
  const answer = JSON.parse(text) as ExecutionResult;
  return JSON.stringify({ ...answer, extensions: { ...answer.extensions, cost } });
}
