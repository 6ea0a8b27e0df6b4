import { isIP } from 'node:net';
import { defaultSettings, type RateLimitUnit } from '../config/settings.js';
import { type OperationRecord, OperationSlot } from '../operation-record.js';
import type { OperationLimiter, RateDecision } from './operation-limiter.js';
import { VouchedCallers } from './vouched-callers.js';

export interface OperationCounterOptions {
  /** The counters: in this process or in Redis. */
  limiter: OperationLimiter;
  /** What RATE_LIMIT counts: REST calls, or operations (RATE_LIMIT_UNIT). @default 'calls' */
  rateLimitUnit?: RateLimitUnit;
  /** Proxies whose `X-Forwarded-For` entries are believed (TRUST_PROXY_HOPS). @default 0 */
  trustProxyHops?: number;
}

const DEFAULTS = defaultSettings();

/** Whom an operation is charged to: its keys (its caller, or its address, or both), and what each was charged. */
interface Charge {
  keys: readonly string[];
  /** The address, when the caller is not vouched for yet and the operation counts against it as well. */
  address: string | undefined;
  /** What the keys were charged: one operation, or its estimated calls; 0 until charged. */
  amount: number;
}

/**
 * What the rate limit counts, one per gateway, in RATE_LIMIT_UNIT: each operation once (counted at
 * its parameters), or the REST calls it is estimated to make (charged before it runs, `charge`),
 * whoever asks first (the hit path before Yoga, or the plugins); and, once it ran, what it did not
 * spend given back (`settle`). A read cache hit makes no call: in calls it costs nothing.
 *
 * A caller is its address (`trustProxyHops` back along `X-Forwarded-For`, an IP address or else the
 * connection's), and a Bearer credential is a caller of its own (its `callerKey`) once the upstream
 * has accepted it (`VouchedCallers`): until then each of its operations counts against its address
 * as well, and stays counted there unless the upstream answers it, so that tokens the upstream
 * refuses, or nobody checked, cannot buy fresh allowances.
 */
export class OperationCounter {
  readonly #limiter: OperationLimiter;
  readonly #unit: RateLimitUnit;
  readonly #trustProxyHops: number;
  readonly #vouched = new VouchedCallers();
  readonly #counted = new OperationSlot<RateDecision[] | Promise<RateDecision[]>>();
  readonly #charges = new OperationSlot<Charge>();

  constructor({ limiter, rateLimitUnit = DEFAULTS.rateLimitUnit, trustProxyHops = DEFAULTS.trustProxyHops }: OperationCounterOptions) {
    this.#limiter = limiter;
    this.#unit = rateLimitUnit;
    this.#trustProxyHops = trustProxyHops;
  }

  /**
   * At an operation's parameters: finds whom it is charged to, `caller` (a callerKey; undefined
   * without a credential) and the address its `X-Forwarded-For` and connection give, and in
   * operations counts it: the decisions of every key it counts against, at once when counted in
   * this process (none in calls, where `charge` takes). Asked again for the same operation, it
   * gives the same decisions and counts nothing more.
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
    const keys = caller === undefined ? [address] : this.#vouched.has(caller) ? [caller] : [caller, address];
    const charge: Charge = { keys, address: keys.length === 2 ? address : undefined, amount: 0 };
    this.#charges.set(record, charge);
    const decisions = this.#unit === 'operations' ? this.#take(charge, 1) : [];
    this.#counted.set(record, decisions);
    return decisions;
  }

  /**
   * Before an operation runs, in calls: takes its estimated calls from each of its keys, or nothing
   * when they do not fit what one of them has left (the decisions say so). In operations, nothing:
   * it was counted at its parameters.
   */
  charge(record: OperationRecord, calls: number): RateDecision[] | Promise<RateDecision[]> {
    const charge = this.#charges.get(record);
    if (this.#unit === 'operations' || !charge) return [];
    return this.#take(charge, calls);
  }

  /**
   * Once an operation ran: vouches for its caller when the upstream answered its credential, or
   * when it was answered from the read cache (the upstream's answer to this very credential); in
   * calls, gives back to its caller what it was charged beyond the calls it made (and takes what it
   * made beyond them, should an estimate fall short), and to the address all of it once the caller
   * is vouched for; in operations, gives the address its one back once the caller is vouched for.
   * So an address keeps counted only what the upstream refused and what never reached it: rotating
   * refused tokens buys nothing, and the new callers behind one address (an office, a proxy) do not
   * spend each other's allowance.
   */
  settle(record: OperationRecord, caller: string | undefined): void {
    const vouched = caller !== undefined && (record.cache === 'hit' || record.acceptedByUpstream());
    if (vouched) this.#vouched.add(caller);
    const charge = this.#charges.take(record);
    if (!charge || charge.amount === 0) return;
    const unspent = this.#unit === 'calls' ? charge.amount - record.upstreamCalls.length : 0;
    for (const key of charge.keys) {
      const back = key === charge.address && vouched ? charge.amount : unspent;
      if (back !== 0) this.#limiter.giveBack(key, back);
    }
  }

  /** Takes `amount` from every key of `charge`, all or none: a key that refuses gives the others theirs back. */
  #take(charge: Charge, amount: number): RateDecision[] | Promise<RateDecision[]> {
    const taken = charge.keys.map((key) => this.#limiter.take(key, amount));
    const settled = (decisions: RateDecision[]) => {
      if (decisions.every((decision) => decision.allowed)) charge.amount = amount;
      else if (amount > 0) {
        decisions.forEach((decision, index) => {
          if (decision.allowed) this.#limiter.giveBack(charge.keys[index]!, amount);
        });
      }
      return decisions;
    };
    return taken.some((decision) => decision instanceof Promise) ? Promise.all(taken).then(settled) : settled(taken as RateDecision[]);
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
