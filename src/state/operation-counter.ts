import { isIP } from 'node:net';
import { defaultSettings } from '../config/settings.js';
import { type OperationRecord, OperationSlot } from '../operation-record.js';
import type { OperationLimiter, RateDecision } from './operation-limiter.js';
import { VouchedCallers } from './vouched-callers.js';

export interface OperationCounterOptions {
  /** The counters: in this process or in Redis. */
  limiter: OperationLimiter;
  /** Proxies whose `X-Forwarded-For` entries are believed (TRUST_PROXY_HOPS). @default 0 */
  trustProxyHops?: number;
}

const DEFAULTS = defaultSettings();

/**
 * What the rate limit counts, one per gateway: each operation once, whoever counts it first (the
 * hit path before Yoga, or useRateLimit), and the callers the upstream has vouched for.
 *
 * A caller is its address (`trustProxyHops` back along `X-Forwarded-For`, an IP address or else the
 * connection's), and a Bearer credential is a caller of its own (its `callerKey`) once the upstream
 * has accepted it (`VouchedCallers`): until then each of its operations counts against its address
 * as well, and stays counted there unless the upstream answers it (`vouchFor`), so that tokens the
 * upstream refuses, or nobody checked, cannot buy fresh allowances.
 */
export class OperationCounter {
  readonly #limiter: OperationLimiter;
  readonly #trustProxyHops: number;
  readonly #vouched = new VouchedCallers();
  readonly #counted = new OperationSlot<RateDecision[] | Promise<RateDecision[]>>();
  /** The address an operation of a caller not yet vouched for was counted against as well, until the upstream answers its credential. */
  readonly #addressTaken = new OperationSlot<string>();

  constructor({ limiter, trustProxyHops = DEFAULTS.trustProxyHops }: OperationCounterOptions) {
    this.#limiter = limiter;
    this.#trustProxyHops = trustProxyHops;
  }

  /**
   * Counts the operation of `record` once, for `caller` (a callerKey; undefined without a
   * credential) from the address its `X-Forwarded-For` and connection give: the decisions of every
   * key it counts against, at once when counted in this process. Asked again for the same
   * operation, it gives the same decisions and counts nothing more.
   */
  count(
    record: OperationRecord,
    caller: string | undefined,
    forwardedFor: string | null,
    remoteAddress: string | undefined,
  ): RateDecision[] | Promise<RateDecision[]> {
    const counted = this.#counted.get(record);
    if (counted) return counted;
    const address = `address:${addressOf(forwardedFor, remoteAddress, this.#trustProxyHops)}`;
    const callers = caller === undefined ? [address] : this.#vouched.has(caller) ? [caller] : [caller, address];
    if (callers.length === 2) this.#addressTaken.set(record, address);
    const taken = callers.map((key) => this.#limiter.take(key, 1));
    const decisions = taken.some((decision) => decision instanceof Promise) ? Promise.all(taken) : (taken as RateDecision[]);
    this.#counted.set(record, decisions);
    return decisions;
  }

  /**
   * Vouches for the caller of an operation the upstream answered for its credential, or that was
   * answered from the read cache (the upstream's answer to this very credential, within the cache's
   * time to live): it counts as itself from now on, and the operation is given back to the address
   * it was counted against as well. So an address keeps counted only what the upstream refused and
   * what never reached it: rotating refused tokens buys nothing, and the new callers behind one
   * address (an office, a proxy) do not spend each other's allowance.
   */
  vouchFor(record: OperationRecord, caller: string | undefined): void {
    if (caller === undefined || !(record.cache === 'hit' || record.acceptedByUpstream())) return;
    this.#vouched.add(caller);
    const address = this.#addressTaken.take(record);
    if (address !== undefined) this.#limiter.giveBack(address, 1);
  }
}

/** Where a request comes from: `trustProxyHops` back along `X-Forwarded-For` when that entry is an IP address, or else its connection's address. */
function addressOf(forwardedFor: string | null, remoteAddress: string | undefined, trustProxyHops: number): string {
  const forwarded = (forwardedFor ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  // Each trusted proxy appended the address it saw; the entries before those are the client's to forge,
  // and an entry that is no address was not written by a proxy (a client reaching the pod directly).
  const entry = trustProxyHops > 0 ? forwarded.at(-trustProxyHops) : undefined;
  return (entry !== undefined && isIP(entry) !== 0 ? entry : undefined) ?? remoteAddress ?? 'unknown';
}
