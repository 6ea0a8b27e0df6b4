import type { ExecutionResult } from 'graphql';
import { isAsyncIterable, mapAsyncIterator, type Plugin } from 'graphql-yoga';
import { type RequestSummary, sumUp } from '../observability/request-summary.js';
import { answeredAsOne, type OperationRecord, requestRecords } from '../operation-record.js';

export interface RequestSummaryOptions {
  /** Called once per operation, when its response is out (its last part, for an answer in parts): the log line and the metrics. */
  onSummary: (summary: RequestSummary) => void;
}

/**
 * Notes each operation's answer on its record (whether it holds data, its error codes, its parts)
 * and, once the response is out, calls `onSummary` with what the record says: once per operation of
 * each request to the GraphQL endpoint, in a batch's order; for an answer in parts, once its last
 * part is out or its client has gone. The records are useOperationRecords'.
 */
export function useRequestSummary({ onSummary }: RequestSummaryOptions): Plugin {
  const finish = (record: OperationRecord, now?: number) => sumUp(record, onSummary, now);
  return {
    onResultProcess: ({ request, result, setResult, serverContext }) => {
      if (isAsyncIterable(result)) {
        const [record] = requestRecords(serverContext);
        if (record) setResult(observedParts(record, result, request.signal, finish));
        return;
      }
      if (!Array.isArray(result)) answeredAsOne(serverContext);
      const records = requestRecords(serverContext);
      (Array.isArray(result) ? result : [result]).forEach((one, index) => {
        if (records[index] && !isAsyncIterable(one)) noteAnswer(records[index], one);
      });
    },
    onResponse: ({ request, response, serverContext }) => {
      // One time for the operations of a batch: they are answered together.
      const now = performance.now();
      for (const record of requestRecords(serverContext)) {
        record.status = response.status;
        // Gone before the answer was made (its upstream calls aborted, their failures its own doing, not the upstream's).
        if (request.signal.aborted) record.clientClosed = true;
        finish(record, now);
      }
    },
  };
}

/** What an answer, or the first part of one, says of its operation: whether it holds data, and its errors' codes. */
function noteAnswer(record: OperationRecord, { data, errors }: ExecutionResult): void {
  if (data && Object.values(data).some((value) => value !== null)) record.hasData = true;
  record.noteErrors(errors);
}

/** One part of an answer in parts: the first has `data` and `errors`, later ones `incremental` results with theirs; the last says `hasNext: false`. */
interface AnswerPart extends ExecutionResult {
  incremental?: ReadonlyArray<Pick<ExecutionResult, 'errors'>>;
  hasNext?: boolean;
}

/**
 * The parts of an answer in parts, unchanged, noted on the record as they go out: how many, when the
 * first, their error codes. `finish` is called once they have ended, failed or their client has
 * gone, whichever comes first.
 */
function observedParts(
  record: OperationRecord,
  parts: AsyncIterable<AnswerPart>,
  signal: AbortSignal,
  finish: (record: OperationRecord) => void,
): AsyncIterableIterator<AnswerPart> {
  const incremental = { parts: 0, firstPartMs: 0, complete: false, ended: false };
  record.incremental = incremental;
  /** Whether the last part (`hasNext: false`) has been handed on; the answer is complete once the parts end after it. */
  let lastHandedOn = false;
  const end = (complete: boolean) => {
    if (incremental.ended) return;
    incremental.ended = true;
    incremental.complete = complete;
    if (signal.aborted && !complete) record.clientClosed = true;
    signal.removeEventListener('abort', gone);
    finish(record);
  };
  const gone = () => end(false);
  signal.addEventListener('abort', gone);
  return mapAsyncIterator(
    parts,
    (part) => {
      if (incremental.parts++ === 0) {
        incremental.firstPartMs = performance.now() - record.startedAt;
        noteAnswer(record, part);
      } else record.noteErrors(part.errors);
      for (const increment of part.incremental ?? []) record.noteErrors(increment.errors);
      if (part.hasNext === false) lastHandedOn = true;
      return part;
    },
    (error: unknown) => {
      end(false);
      throw error;
    },
    () => end(lastHandedOn),
  );
}
