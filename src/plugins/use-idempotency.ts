import { type ExecutionResult, GraphQLError } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { returnedHeaders } from '../answer/returned-headers.js';
import { defaultSettings } from '../config/settings.js';
import { ErrorCode } from '../errors.js';
import { idempotencyKeyOf } from '../http/idempotency-key.js';
import { type OperationRecord, OperationSlot, recordOf, requestRecords } from '../operation-record.js';
import { requestKey } from '../state/cache-lookups.js';
import { callerKeyOf } from '../state/caller-key.js';
import {
  type Claim,
  type IdempotencyKey,
  type IdempotencyKeys,
  type KeptAnswer,
  keyOf,
  type Settlement,
} from '../state/idempotency-keys.js';
import type { UpstreamCall } from '../upstream/client.js';

export interface IdempotencyOptions {
  /** Where keys are claimed and answers kept (this process or Redis, src/state/). */
  keys: IdempotencyKeys;
  /** How long a key is remembered after its first answer (IDEMPOTENCY_TTL_MS). @default 86400000 */
  idempotencyTtlMs?: number;
  /** The operation's whole time (REQUEST_DEADLINE_MS), which a claim's lease outlasts. @default 15000 */
  requestDeadlineMs?: number;
  /** The upstream answer headers returned to the client (RETURN_HEADERS): a replay gives back those its first answer had. @default [] */
  returnHeaders?: readonly string[];
}

const DEFAULTS = defaultSettings();

/**
 * What a claim's lease holds beyond the operation's deadline: the answer written and the key
 * settled, one Redis command at most (REDIS_COMMAND_TIMEOUT_MS is at most 10 s).
 */
const LEASE_MARGIN_MS = 10_000;

/** How long a client is asked to wait before it sends a key again whose first request still runs, or while the store fails. */
const RETRY_AFTER_SECONDS = 1;

/** A keyed operation: its key, its request's fingerprint, and once it runs under the key, its claim's token. */
interface Keyed {
  key: IdempotencyKey;
  fingerprint: string;
  token?: string;
  /** Its result's JSON text, once Yoga has serialised it, whatever the answer's media type. */
  text?: string;
  /** What keeps the answer once its text is known, when the answer went out before Yoga serialised it (a stream's body). */
  whenText?: (text: string) => void;
}

/**
 * Writes that happen once: a mutation sent with an `Idempotency-Key` (IETF httpapi draft 06) runs
 * once per key, and a retry with the key gets the first answer again, never a second write.
 *
 * - The header is read strictly (`idempotencyKeyOf`): a malformed one is refused 400 `BAD_REQUEST`
 *   before anything is parsed, whatever the operation; so is a batch that carries one (a key covers
 *   one operation). A key on a query is ignored: reads are safe to repeat. A request with a key is
 *   answered whole, never in parts: its answer is what a retry gets.
 * - A key is its caller's (the hash of its Bearer credential, as the rate limit and the read cache
 *   know it), and is given to one request: its document text, operation name, variables and the
 *   headers sent upstream (`requestKey`, the read cache's own).
 * - Once the operation is known to be a mutation and every check before execution has passed (the
 *   budget included), the key is claimed, atomically across replicas: one round trip to the store.
 *   The claim finds the key free (the mutation runs), answered (the first answer is given again,
 *   `Idempotent-Replayed: true`, nothing sent upstream), or refuses the mutation, nothing run:
 *   another request's key (422 `IDEMPOTENCY_KEY_REUSED`), its first request still running (409
 *   `IDEMPOTENCY_KEY_IN_USE`, `Retry-After`), its outcome unknown (409
 *   `IDEMPOTENCY_OUTCOME_UNKNOWN`), the store failing (503 `IDEMPOTENCY_UNAVAILABLE`, `Retry-After`).
 * - A claimed run is settled by what its upstream calls say (`settlementOf`): answered, its answer
 *   (status, body, the headers it got beside the gateway's own) kept for IDEMPOTENCY_TTL_MS; a write
 *   sent without an answer, the key marked unknown, never sent again by the gateway; nothing
 *   reached the upstream, the key forgotten, so that a retry runs. The settlement is sent as the
 *   answer goes out and not waited for: until it lands a retry finds the key running. A run that
 *   outlives its lease unsettled reads as unknown.
 * - A dry run (`X-Debug-Upstream: dry-run`) claims no key. What it did is the record's
 *   `idempotency`, for the log line, the metric and `Idempotent-Replayed`; the key itself is never
 *   logged.
 */
export function useIdempotency({
  keys,
  idempotencyTtlMs = DEFAULTS.idempotencyTtlMs,
  requestDeadlineMs = DEFAULTS.requestDeadlineMs,
  returnHeaders = DEFAULTS.returnHeaders,
}: IdempotencyOptions): Plugin {
  const times = { leaseMs: requestDeadlineMs + LEASE_MARGIN_MS, ttlMs: idempotencyTtlMs };
  const keyed = new OperationSlot<Keyed>();
  return {
    onRequestParse: ({ request }) => {
      if (!request.headers.has('idempotency-key')) return;
      return {
        onRequestParseDone: ({ requestParserResult }) => {
          if (Array.isArray(requestParserResult))
            throw badRequest('An Idempotency-Key covers one operation: send a keyed mutation alone, not in a batch.');
        },
      };
    },
    onParams: ({ params, request, context }) => {
      const read = idempotencyKeyOf(request.headers.get('idempotency-key'));
      if (read === undefined) return;
      if (read === 'malformed') {
        throw badRequest(
          'The Idempotency-Key header is not one key: send 1 to 255 printable ASCII characters, quoted ("…") or bare, once.',
        );
      }
      const record = recordOf(context);
      record.answeredInParts = false;
      const caller = callerKeyOf(request);
      const { query, operationName, variables } = params;
      // Without a Bearer credential nothing reaches the upstream (the bearer check refuses it), so there is nothing to protect.
      if (caller === undefined || typeof query !== 'string') return;
      const fingerprint = requestKey({ query, operationName, variables }, record.forwardedHeaders?.headers);
      keyed.set(record, { key: keyOf(caller, read.key), fingerprint });
    },
    // Neither hook is async: an operation without a key pays no promise for them.
    onExecute: ({ args, setResultAndStopExecution }) => {
      const record = recordOf(args.contextValue);
      const operation = keyed.get(record);
      if (!operation) return;
      if (record.operationType !== 'mutation' || record.debug?.dryRun) {
        keyed.take(record);
        return;
      }
      return keys.claim(operation.key, operation.fingerprint, times).then((claim) => {
        if (claim.found === 'claimed') {
          operation.token = claim.token;
          record.idempotency = 'claimed';
          return;
        }
        keyed.take(record);
        setResultAndStopExecution(instead(record, claim));
      });
    },
    // The result's JSON is kept, not the response's body: an answer to an Accept of text/event-stream or
    // multipart/mixed frames its one result, and a retry may ask for another media type. Every processor
    // of Yoga's serialises the result through its `stringify`, which the plugins after this one keep.
    onResultProcess: ({ result, setResult, serverContext }) => {
      const [record] = requestRecords(serverContext);
      const operation = record && keyed.get(record);
      if (!record || !operation?.token || Array.isArray(result) || isAsyncIterable(result)) return;
      setResult(textNoted(result, operation, record.debug?.show === true));
    },
    onResponse: ({ response, serverContext }) => {
      // A keyed request holds one operation: a batch carrying a key was refused.
      const [record] = requestRecords(serverContext);
      const operation = record && keyed.take(record);
      if (record && operation?.token)
        settleRun({ keys, record, operation, token: operation.token, status: response.status, returnHeaders, idempotencyTtlMs });
    },
  };
}

/** What settling a run takes: the store, the run's record and keyed operation, its answer's status, and the settings. */
interface Run {
  keys: IdempotencyKeys;
  record: OperationRecord;
  operation: Keyed;
  /** The claim's token. */
  token: string;
  status: number;
  returnHeaders: readonly string[];
  idempotencyTtlMs: number;
}

/**
 * Settles a claimed run by what its upstream calls say (`settlementOf`), as its answer goes out.
 * The settlement is not waited for: a keyed mutation costs one round trip on its way, the claim.
 * A stream's body is serialised as it is sent, after `onResponse`: its answer is kept then, and if
 * its client leaves before, the lease ends unsettled (unknown).
 */
function settleRun({ keys, record, operation, token, status, returnHeaders, idempotencyTtlMs }: Run): void {
  const settle = (settlement: Settlement) => void keys.settle(operation.key, token, settlement, idempotencyTtlMs);
  const outcome = settlementOf(record.upstreamCalls);
  if (outcome !== 'answered') {
    record.idempotency = outcome === 'free' ? 'released' : 'unknown';
    settle({ outcome });
    return;
  }
  record.idempotency = 'stored';
  const answer = { status, headers: returnedHeaders([record], returnHeaders), hasData: record.hasData, errorCodes: [...record.errorCodes] };
  const keep = (body: string) => settle({ outcome, answer: { ...answer, body } });
  if (operation.text === undefined) operation.whenText = keep;
  else keep(operation.text);
}

/**
 * `result`, which notes its JSON text on `operation` when Yoga serialises it (and hands it to
 * `whenText`, if the answer went out first). graphql-jit's result, or the upstream view's, serialises
 * itself: that is the text the answer carries. The upstream calls are shown to the request that
 * asked (`shown`), never to its retry, as the read cache keeps none.
 */
function textNoted(result: ExecutionResult, operation: Keyed, shown: boolean): ExecutionResult {
  const own = (result as { stringify?: (value: unknown) => string }).stringify;
  return {
    ...result,
    stringify: (value: unknown) => {
      const text = own ? own(value) : JSON.stringify(value);
      operation.text = shown ? withoutUpstreamView(text) : text;
      operation.whenText?.(operation.text);
      return text;
    },
  } as ExecutionResult;
}

/** A result's JSON text without the upstream calls it showed (`extensions.upstream`, X-Debug-Upstream). */
function withoutUpstreamView(text: string): string {
  const { extensions, ...rest } = JSON.parse(text) as ExecutionResult;
  if (!extensions || !('upstream' in extensions)) return text;
  const { upstream: _shown, ...others } = extensions;
  return JSON.stringify(Object.keys(others).length > 0 ? { ...rest, extensions: others } : rest);
}

/**
 * How a run under a key ended, by its upstream calls: `free` when none was sent (each was refused
 * before it left: the circuit open, no connection, the deadline used up), so the upstream never saw
 * it; `unknown` when a call was sent and got no answer (a timeout or a lost connection after
 * sending: the write may have been done), or is still going; `answered` otherwise.
 */
function settlementOf(calls: ReadonlyArray<UpstreamCall | undefined>): Settlement['outcome'] {
  const sent = calls.filter((call) => call === undefined || call.sent);
  if (sent.length === 0) return 'free';
  return sent.some((call) => call?.status === undefined) ? 'unknown' : 'answered';
}

/** The result of a mutation that its key's claim does not let run: the key's answer again, or a refusal; noted on its record. */
function instead(record: OperationRecord, claim: Exclude<Claim, { found: 'claimed' }>): ExecutionResult {
  if (claim.found === 'answered') {
    record.idempotency = 'replayed';
    return replayed(record, claim.answer);
  }
  const refusal = REFUSALS[claim.found];
  record.idempotency = refusal.outcome;
  return { errors: [refusal.error()] };
}

/**
 * The result of a mutation whose key was answered: the kept answer, sent as it was kept, with its
 * status, neither run nor serialised again. The hooks after this one read only whether a result
 * has data, which its `data` says as the answer did; its error codes are noted on the record.
 */
function replayed(record: OperationRecord, answer: KeptAnswer): ExecutionResult {
  for (const code of answer.errorCodes) if (!record.errorCodes.includes(code)) record.errorCodes.push(code);
  record.replayedHeaders = answer.headers;
  const { body } = answer;
  return {
    data: answer.hasData ? REPLAYED_DATA : REPLAYED_WITHOUT_DATA,
    extensions: { http: { status: answer.status } },
    stringify: () => body,
  } as ExecutionResult;
}

/** The data of a replayed result, whose text is the kept one: with data, or without (its field failed). */
const REPLAYED_DATA = Object.freeze({ replayed: true });
const REPLAYED_WITHOUT_DATA = Object.freeze({ replayed: null });

/** A refusal of the request as a whole, before anything of it runs. */
const badRequest = (message: string) => new GraphQLError(message, { extensions: { code: ErrorCode.BAD_REQUEST, http: { status: 400 } } });

/** A refusal that asks the client to send it again after RETRY_AFTER_SECONDS. */
const retryLater = (code: ErrorCode, status: number, message: string) =>
  new GraphQLError(message, {
    extensions: { code, retryAfter: RETRY_AFTER_SECONDS, http: { status, headers: { 'retry-after': String(RETRY_AFTER_SECONDS) } } },
  });

/** What each claim that does not let the mutation run answers, and what it is logged and counted as. */
const REFUSALS = {
  reused: {
    outcome: 'reused',
    error: () =>
      new GraphQLError(
        'This Idempotency-Key was sent with another request (another document, operation name or variables): send a new key with each new request.',
        { extensions: { code: ErrorCode.IDEMPOTENCY_KEY_REUSED, http: { status: 422 } } },
      ),
  },
  running: {
    outcome: 'conflict',
    error: () =>
      retryLater(
        ErrorCode.IDEMPOTENCY_KEY_IN_USE,
        409,
        `The first request with this Idempotency-Key is still running: send it again after ${RETRY_AFTER_SECONDS} s for its answer.`,
      ),
  },
  unknown: {
    outcome: 'unknown',
    error: () =>
      new GraphQLError(
        'The request with this Idempotency-Key reached the upstream service and got no answer, so whether it was done is unknown, and the gateway will not send it again. Read what it would have changed to find out, or wait for the key to expire.',
        { extensions: { code: ErrorCode.IDEMPOTENCY_OUTCOME_UNKNOWN, http: { status: 409 } } },
      ),
  },
  unavailable: {
    outcome: 'unavailable',
    error: () =>
      retryLater(
        ErrorCode.IDEMPOTENCY_UNAVAILABLE,
        503,
        `The gateway cannot check idempotency keys now, and runs no mutation with one unprotected: send it again after ${RETRY_AFTER_SECONDS} s.`,
      ),
  },
} as const;
