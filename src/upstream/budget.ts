import type { GraphQLError } from 'graphql';
import type { SectionSettings } from '../config/settings.js';
import { limitExceeded } from '../errors.js';
import type { Deadline, ReadAllowance } from './call-timer.js';
import { UPSTREAM_MAX_PAGE } from './paging.js';

/**
 * How many upstream requests a root field needs for its arguments, declared on the field as
 * `extensions: { upstreamCalls }` and summed by useUpstreamBudget before execution. Root fields
 * without it need one; `__typename` and introspection none.
 */
export type UpstreamCallEstimate = (args: Record<string, unknown>) => number;

/**
 * How many Federation entity representations a root field is asked to resolve (`_entities`),
 * declared on the field as `extensions: { representations }` and summed by useUpstreamBudget
 * before execution, against what the request's upstream calls can find.
 */
export type RepresentationCount = (args: Record<string, unknown>) => number;

/**
 * MAX_UPSTREAM_CALLS exceeded: before execution (`needed` known) or at the call past the budget.
 * `used` is what the other operations of the same batched request had already reserved.
 */
function upstreamCallsExceeded(max: number, needed?: number, used = 0): GraphQLError {
  const what = needed === undefined ? 'needs more than' : `would need ${needed} upstream requests, more than`;
  const allowed =
    used === 0 ? `the ${max} upstream requests allowed` : `the ${max - used} left of the ${max} upstream requests allowed per HTTP request`;
  return limitExceeded(
    'upstreamCalls',
    max,
    `This operation ${what} ${allowed} (MAX_UPSTREAM_CALLS). Ask for fewer records or fewer aliased fields per request.`,
  );
}

/**
 * The upstream calls, the time and the upstream answer bytes one HTTP request may use:
 * MAX_UPSTREAM_CALLS, REQUEST_DEADLINE_MS and UPSTREAM_MAX_BYTES. Every operation of a batched
 * request draws on the same budget, so a batch of ten costs the upstream no more than one
 * operation may.
 */
export class RequestBudget {
  readonly max: number;
  /**
   * Entity representations the request may ask for: what its upstream calls can find at most, one
   * record of the largest page each (MAX_UPSTREAM_CALLS × 25). More could never all be resolved,
   * and each would still cost an answer of its own.
   */
  readonly maxRepresentations: number;
  /** When the request's time is up. */
  readonly deadline: Deadline;
  /**
   * Upstream answer bytes the request may read, all its calls together: UPSTREAM_MAX_BYTES, which
   * also bounds each body. Pages of that size each made a 42 MB answer of `apiKeys(first: 100)`.
   */
  readonly bytes: ReadAllowance;
  #reserved = 0;
  #representations = 0;
  #sent = 0;

  constructor({ maxUpstreamCalls, requestDeadlineMs, upstreamMaxBytes }: SectionSettings<'upstream'>) {
    this.max = maxUpstreamCalls;
    this.maxRepresentations = maxUpstreamCalls * UPSTREAM_MAX_PAGE;
    this.deadline = { at: Date.now() + requestDeadlineMs, ms: requestDeadlineMs };
    this.bytes = { max: upstreamMaxBytes, left: upstreamMaxBytes };
  }

  /** Before an operation runs: sets its representations aside, or returns the error when they do not fit. */
  reserveRepresentations(count: number): GraphQLError | undefined {
    if (this.#representations + count > this.maxRepresentations) {
      const left = this.maxRepresentations - this.#representations;
      const allowed = left === this.maxRepresentations ? '' : `, of which ${left} are left for this operation`;
      return limitExceeded(
        'representations',
        this.maxRepresentations,
        `This operation asks for ${count} entity representations, more than the ${this.maxRepresentations} that one request's ` +
          `upstream calls can find (MAX_UPSTREAM_CALLS × ${UPSTREAM_MAX_PAGE})${allowed}. Send fewer representations per request.`,
      );
    }
    this.#representations += count;
    return undefined;
  }

  /** Before an operation runs: sets its estimate aside, or returns the error when it does not fit. */
  reserve(needed: number): GraphQLError | undefined {
    if (this.#reserved + needed > this.max) return upstreamCallsExceeded(this.max, needed, this.#reserved);
    this.#reserved += needed;
    return undefined;
  }

  /** At each upstream call: counts it, or returns the error once the budget is spent. */
  spend(): GraphQLError | undefined {
    if (this.#sent >= this.max) return upstreamCallsExceeded(this.max);
    this.#sent++;
    return undefined;
  }
}
