import { describe, expect, it } from 'vitest';
import { InFlightReads } from '../../src/upstream/in-flight-reads.js';

/** A call whose answer the test gives when it chooses, and whose signal it can read. */
function pendingCall() {
  const call = {
    started: 0,
    signal: undefined as AbortSignal | undefined,
    settle: (_value: string) => {},
    fail: (_error: Error) => {},
    start: (signal: AbortSignal) => {
      call.started++;
      call.signal = signal;
      return new Promise<string>((resolve, reject) => {
        call.settle = resolve;
        call.fail = reject;
      });
    },
  };
  return call;
}

describe('InFlightReads', () => {
  it('gives every request that joins under one key the answer of one call', async () => {
    const reads = new InFlightReads<string>();
    const call = pendingCall();
    const answers = Promise.all([
      reads.join('alice', 'k', call.start),
      reads.join('alice', 'k', call.start),
      reads.join('alice', 'k', call.start),
    ]);
    call.settle('answer');
    expect(await answers).toEqual(['answer', 'answer', 'answer']);
    expect(call.started).toBe(1);
  });

  it('makes one call per key: other keys are other calls', async () => {
    const reads = new InFlightReads<string>();
    const [a, b] = [pendingCall(), pendingCall()];
    const answers = Promise.all([reads.join('alice', 'a', a.start), reads.join('alice', 'b', b.start)]);
    a.settle('for a');
    b.settle('for b');
    expect(await answers).toEqual(['for a', 'for b']);
    expect([a.started, b.started]).toEqual([1, 1]);
  });

  it('never shares a call between callers, whatever they ask', async () => {
    const reads = new InFlightReads<string>();
    const [alice, bob] = [pendingCall(), pendingCall()];
    const answers = Promise.all([reads.join('alice', 'k', alice.start), reads.join('bob', 'k', bob.start)]);
    alice.settle('for alice');
    bob.settle('for bob');
    expect(await answers).toEqual(['for alice', 'for bob']);
  });

  it('gives a read that comes after the caller forgot its reads (a write of its own) a call of its own; the earlier ones still settle', async () => {
    const reads = new InFlightReads<string>();
    const [before, after, unused] = [pendingCall(), pendingCall(), pendingCall()];
    const early = reads.join('alice', 'k', before.start);
    reads.forget('alice');
    const late = reads.join('alice', 'k', after.start);
    before.settle('read before the write');
    expect(await early).toBe('read before the write');
    // The earlier call, once over, leaves the later one in its place: a read now joins it.
    const joining = reads.join('alice', 'k', unused.start);
    after.settle('read after the write');
    expect([await late, await joining]).toEqual(['read after the write', 'read after the write']);
    expect([before.started, after.started, unused.started]).toEqual([1, 1, 0]);
  });

  it('forgets a call once it is over: the next request under its key makes a new one', async () => {
    const reads = new InFlightReads<string>();
    const [first, second] = [pendingCall(), pendingCall()];
    const answer = reads.join('alice', 'k', first.start);
    first.settle('old');
    expect(await answer).toBe('old');
    const next = reads.join('alice', 'k', second.start);
    second.settle('new');
    expect(await next).toBe('new');
    expect([first.started, second.started]).toEqual([1, 1]);
  });

  it('gives a failure to every request that waits for it, and forgets the call', async () => {
    const reads = new InFlightReads<string>();
    const [failing, retried] = [pendingCall(), pendingCall()];
    const answers = Promise.allSettled([reads.join('alice', 'k', failing.start), reads.join('alice', 'k', failing.start)]);
    failing.fail(new Error('upstream down'));
    expect((await answers).map((answer) => (answer.status === 'rejected' ? (answer.reason as Error).message : answer.value))).toEqual([
      'upstream down',
      'upstream down',
    ]);
    const again = reads.join('alice', 'k', retried.start);
    retried.settle('back');
    expect(await again).toBe('back');
  });

  it('keeps the call going while one request still waits, when another goes away', async () => {
    const reads = new InFlightReads<string>();
    const call = pendingCall();
    const leaving = new AbortController();
    const left = reads.join('alice', 'k', call.start, leaving.signal);
    const staying = reads.join('alice', 'k', call.start, new AbortController().signal);
    leaving.abort();
    expect(call.signal!.aborted).toBe(false);
    call.settle('answer');
    expect([await left, await staying]).toEqual(['answer', 'answer']);
  });

  it('aborts the call once every request that waited for it has gone', async () => {
    const reads = new InFlightReads<string>();
    const call = pendingCall();
    const [first, second] = [new AbortController(), new AbortController()];
    const answers = Promise.allSettled([
      reads.join('alice', 'k', call.start, first.signal),
      reads.join('alice', 'k', call.start, second.signal),
    ]);
    first.abort();
    expect(call.signal!.aborted).toBe(false);
    second.abort();
    expect(call.signal!.aborted).toBe(true);
    call.fail(new Error('aborted'));
    expect((await answers).map((answer) => answer.status)).toEqual(['rejected', 'rejected']);
  });

  it('counts a request that arrives already gone as leaving at once: alone, it aborts the call it started', async () => {
    const reads = new InFlightReads<string>();
    const call = pendingCall();
    const gone = new AbortController();
    gone.abort();
    const answer = reads.join('alice', 'k', call.start, gone.signal);
    expect(call.signal!.aborted).toBe(true);
    call.fail(new Error('aborted'));
    await expect(answer).rejects.toThrow('aborted');
  });

  it('never lets a read join a call every request left, and the late end of that call leaves the next one in place', async () => {
    const reads = new InFlightReads<string>();
    const [abandoned, next, third] = [pendingCall(), pendingCall(), pendingCall()];
    const gone = new AbortController();
    const left = reads.join('alice', 'k', abandoned.start, gone.signal);
    gone.abort();
    // Aborted, but not settled yet (undici settles it once it reaches a socket): the same read makes a call of its own.
    const again = reads.join('alice', 'k', next.start);
    abandoned.fail(new Error('aborted'));
    await expect(left).rejects.toThrow('aborted');
    // The abandoned call's end took nothing out of the map: a read now joins the call that stands there.
    const joining = reads.join('alice', 'k', third.start);
    next.settle('answer');
    expect([await again, await joining]).toEqual(['answer', 'answer']);
    expect([abandoned.started, next.started, third.started]).toEqual([1, 1, 0]);
  });
});
