import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Settings } from './config/settings.js';
import type { CorsPolicy } from './cors.js';
import { wholeResultType } from './http/accept.js';
import { acceptsGzip } from './http/accept-encoding.js';
import { bearerCredential } from './http/bearer.js';
import { forwardedHeaders } from './http/forwarded-headers.js';
import { gzipped } from './http/gzip.js';
import { nodeRequestHeaders } from './http/node-request-headers.js';
import { clientOf } from './observability/client-identity.js';
import { OperationRecord, openBeforeYoga } from './observability/operation-record.js';
import { requestIdFrom } from './observability/request-id.js';
import { type RequestSummary, recordedOperationName, summaryOf } from './observability/request-summary.js';
import { isOversized } from './plugins/use-document-cache.js';
import type { OperationCounter } from './plugins/use-rate-limit.js';
import { asksFresh, requestKey } from './plugins/use-response-cache.js';
import { SECURITY_HEADERS } from './plugins/use-security-headers.js';
import { returnedHeaders } from './plugins/use-upstream-headers.js';
import { callerKey } from './state/caller-key.js';
import type { CachedAnswer, ResponseCache } from './state/response-cache.js';

/**
 * Read cache hits answered by the HTTP front, before Yoga: a hit costs the gateway less than the
 * least a Node proxy spends on the upstream call it saves (docs/performance.md, section Shared
 * state). Only a request that is plainly a hit through Yoga is answered here, with the answer, the
 * headers, the log line, the metrics and the rate limit's count that Yoga's plugins give it (the
 * functions they use, called here; test/state/cache-hits-before-yoga.test.ts compares the two field by
 * field). Anything else is handed to Yoga with its body, and once the front has counted it, with
 * its record, which Yoga adopts with the count (and a miss's lookup) on it, so that nothing is
 * looked up or counted twice.
 */
export interface CachedAnswers {
  /** Whether a request may be a hit this answers, by its method, path and headers: only then is its body read before Yoga. */
  mayAnswer(req: IncomingMessage): boolean;
  /** Answers a hit and resolves true, or resolves false for Yoga to answer the request. */
  answer(req: IncomingMessage, res: ServerResponse, body: Buffer, arrived: number): Promise<boolean>;
}

export interface CachedAnswersOptions {
  cache: ResponseCache;
  /** The rate limit's counting, when RATE_LIMIT_OPERATIONS is on: a hit counts as an operation. */
  counter: OperationCounter | undefined;
  cors: CorsPolicy;
  onSummary(summary: RequestSummary): void;
  settings: Pick<Settings, 'forwardHeaders' | 'returnHeaders' | 'compressionMinBytes' | 'maxDocumentBytes'>;
}

/** The parameters of one operation as a POST's JSON body gives them, when they are nothing else. */
interface PlainParams {
  query: string;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
}

export function cachedAnswers(options: CachedAnswersOptions): CachedAnswers {
  return {
    mayAnswer: (req) => {
      const { headers } = req;
      return (
        req.method === 'POST' &&
        req.url === '/graphql' &&
        headers['content-length'] !== undefined &&
        isJson(headers['content-type']) &&
        bearerCredential(headers.authorization ?? null) !== undefined &&
        // Each of these is Yoga's to answer: a fresh answer, one that shows its calls, one written as a stream.
        !asksFresh(headers['cache-control']) &&
        headers['x-debug-upstream'] === undefined &&
        wholeResultType(nodeRequestHeaders(req).get('accept')) !== undefined
      );
    },
    answer: async (req, res, body, arrived) => {
      const params = plainParams(body);
      if (!params || isOversized(params.query, options.settings.maxDocumentBytes)) return false;
      const headers = nodeRequestHeaders(req);
      const record = new OperationRecord(requestIdFrom(headers.get('x-request-id')), clientOf(headers), undefined, arrived);
      record.operationName = recordedOperationName(params.operationName);
      // From here on Yoga adopts the record, and takes what it holds as done: the count, the lookup.
      openBeforeYoga(req, record);
      const caller = callerKey(bearerCredential(headers.get('authorization'))!);
      // Counted first, as useRateLimit counts before useResponseCache reads: a refused request never reaches the cache.
      const decisions = await options.counter?.count(caller, headers.get('x-forwarded-for'), req.socket.remoteAddress);
      record.rateDecisions = decisions;
      if (decisions?.some((decision) => !decision.allowed)) return false;
      // Put on the record only for a hit: Yoga reads them itself after the checks a miss may still fail.
      const { forwardHeaders } = options.settings;
      const forwarded = forwardHeaders.length > 0 ? forwardedHeaders(headers, forwardHeaders) : undefined;
      const request = requestKey(params, forwarded?.headers);
      const { answer, generation } = await options.cache.get(caller, request);
      if (!answer) {
        // useResponseCache takes it as its own lookup's, once the plugins before it have let the request through.
        record.cacheEntry = { caller, request, generation };
        return false;
      }
      options.counter?.vouch(caller);
      record.forwardedHeaders = forwarded;
      await writeHit(res, record, answer, options, headers);
      options.onSummary(summaryOf(record, 200, performance.now() - arrived));
      return true;
    },
  };
}

/** Writes a hit as Yoga and the plugins after useResponseCache write it, and notes on its record what they note. */
async function writeHit(
  res: ServerResponse,
  record: OperationRecord,
  answer: CachedAnswer,
  { cors, settings }: CachedAnswersOptions,
  request: Pick<Headers, 'get'>,
): Promise<void> {
  record.cache = 'hit';
  record.operationType = 'query';
  record.operationName = answer.operationName;
  record.replayedHeaders = answer.headers;
  record.hasData = true;
  record.status = 200;
  const returned = returnedHeaders([record], settings.returnHeaders);
  let body: string | Buffer = answer.body;
  const headers: Record<string, string> = {
    // Never over the gateway's own (useUpstreamHeaders), Yoga's CORS headers among them.
    ...returned,
    ...cors.headersFor(request),
    'content-type': `${wholeResultType(request.get('accept'))}; charset=utf-8`,
    'x-request-id': record.requestId,
    'cache-control': returned?.['cache-control'] ?? 'private, no-store',
    ...SECURITY_HEADERS,
  };
  const length = Buffer.byteLength(body);
  if (length >= settings.compressionMinBytes && acceptsGzip(request.get('accept-encoding'))) {
    body = await gzipped(Buffer.from(body));
    headers['content-encoding'] = 'gzip';
    headers.vary = headers.vary === undefined ? 'Accept-Encoding' : `${headers.vary}, Accept-Encoding`;
  }
  headers['content-length'] = String(typeof body === 'string' ? length : body.length);
  res.writeHead(200, headers).end(body);
}

/** Yoga's JSON request parser's test of a Content-Type: `application/json`, first of a list, with or without parameters. */
function isJson(contentType: string | undefined): boolean {
  const type = contentType?.split(',')[0];
  return type === 'application/json' || type?.startsWith('application/json;') === true;
}

/** The body's parameters when they are one operation's `query`, `operationName` and `variables` and nothing else; undefined for anything Yoga must read. */
function plainParams(body: Buffer): PlainParams | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const { query, operationName, variables, ...rest } = parsed as Record<string, unknown>;
  if (typeof query !== 'string' || Object.keys(rest).length > 0) return undefined;
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return undefined;
  if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) return undefined;
  return parsed as PlainParams;
}
