/** One upstream read in flight, where it is found, and how many requests wait for it. */
interface Shared<T> {
  caller: string;
  request: string;
  answer: Promise<T>;
  controller: AbortController;
  waiting: number;
}

/**
 * Identical reads in flight at the same time share one upstream call. Reads are joined per caller
 * (a key of the caller's credential, so that no caller ever shares another's answer) and per request;
 * only reads are ever joined, never a write. A request that goes away no longer holds the call up:
 * the call is aborted once every request waiting for it has gone, and until then it settles for all
 * of them. A call no request waits for is never joined: it leaves the map the moment its last
 * request goes, though it settles only later (undici settles an aborted request once it reaches a
 * socket, which while the pool is busy can take as long as the calls ahead of it), so the same read
 * sent again makes a call of its own. A write of the caller's ends the sharing of its reads in
 * flight (`forget`): a read that comes after never gets an answer read before.
 */
export class InFlightReads<T> {
  readonly #callers = new Map<string, Map<string, Shared<T>>>();

  /** The answer of `caller`'s call in flight for `request`, or of a new one made with `start`. */
  join(caller: string, request: string, start: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T> {
    let calls = this.#callers.get(caller);
    let shared = calls?.get(request);
    if (!shared) {
      if (!calls) {
        calls = new Map();
        this.#callers.set(caller, calls);
      }
      const controller = new AbortController();
      const answer = start(controller.signal).finally(() => this.#forgetCall(shared!));
      shared = { caller, request, answer, controller, waiting: 0 };
      calls.set(request, shared);
    }
    return this.#wait(shared, signal);
  }

  /** No request of `caller` joins the reads in flight now: they settle for the requests already waiting. */
  forget(caller: string): void {
    this.#callers.delete(caller);
  }

  /** Takes `shared` out of the map, unless another call stands there already under its key: that one is left alone. */
  #forgetCall(shared: Shared<T>): void {
    const calls = this.#callers.get(shared.caller);
    if (calls?.get(shared.request) !== shared) return;
    calls.delete(shared.request);
    if (calls.size === 0) this.#callers.delete(shared.caller);
  }

  #wait(shared: Shared<T>, signal: AbortSignal | undefined): Promise<T> {
    shared.waiting++;
    if (!signal) return shared.answer;
    if (signal.aborted) return this.#leave(shared);
    const onAbort = () => void this.#leave(shared);
    signal.addEventListener('abort', onAbort, { once: true });
    return shared.answer.finally(() => signal.removeEventListener('abort', onAbort));
  }

  /** One waiter fewer; the last one to leave takes the call out of the map and aborts it, which then rejects for it. */
  #leave(shared: Shared<T>): Promise<T> {
    if (--shared.waiting === 0) {
      this.#forgetCall(shared);
      shared.controller.abort();
    }
    return shared.answer;
  }
}
