/** One upstream read in flight, and how many requests wait for it. */
interface Shared<T> {
  answer: Promise<T>;
  controller: AbortController;
  waiting: number;
}

/**
 * Identical reads in flight at the same time share one upstream call. The key must hold the caller's
 * credential (so that no caller ever shares another's answer) and the whole request; only reads are
 * ever joined, never a write. A request that goes away no longer holds the call up: the call is
 * aborted once every request waiting for it has gone, and until then it settles for all of them.
 */
export class InFlightReads<T> {
  readonly #calls = new Map<string, Shared<T>>();

  /** The answer of the call in flight under `key`, or of a new one made with `start`. */
  join(key: string, start: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T> {
    let shared = this.#calls.get(key);
    if (!shared) {
      const controller = new AbortController();
      const answer = start(controller.signal).finally(() => this.#calls.delete(key));
      shared = { answer, controller, waiting: 0 };
      this.#calls.set(key, shared);
    }
    return this.#wait(shared, signal);
  }

  #wait(shared: Shared<T>, signal: AbortSignal | undefined): Promise<T> {
    shared.waiting++;
    if (!signal) return shared.answer;
    if (signal.aborted) return this.#leave(shared);
    const onAbort = () => void this.#leave(shared);
    signal.addEventListener('abort', onAbort, { once: true });
    return shared.answer.finally(() => signal.removeEventListener('abort', onAbort));
  }

  /** One waiter fewer; the last one to leave aborts the call, which then rejects for it. */
  #leave(shared: Shared<T>): Promise<T> {
    if (--shared.waiting === 0) shared.controller.abort();
    return shared.answer;
  }
}
