import type { IncomingMessage, ServerResponse } from 'node:http';
import { HeaderLines } from '../answer/finish.js';
import { wholeResultType } from '../http/accept.js';
import { bearerCredential } from '../http/bearer.js';
import { nodeRequestHeaders } from '../http/node-request-headers.js';
import { OperationRecord, openBeforeYoga } from '../operation-record.js';
import { callerKey } from '../state/caller-key.js';
import type { CachedAnswer } from '../state/response-cache.js';

/**
 * The hit path: read cache hits answered before Yoga, by the HTTP front's request handler
 * (src/server/http-server.ts), since a hit costs less than the least a Node proxy spends on the
 * upstream call it saves (docs/performance.md, section Shared state). It is not a second pipeline:
 * it runs the steps the plugin list declares (`OnHit`, beside each plugin in src/gateway.ts), each
 * the function its plugin's hook calls, in the list's order, and writes what they made.
 *
 * Only a request that may plainly be a hit is read here: a POST to `/graphql` of a JSON body with a
 * Content-Length, that each step `admits`. Its steps then read it in list order; any of them hands
 * it to Yoga, with its body and its record, which Yoga adopts: what the steps did is found in their
 * slots there (the rate limit's count, the lookup), not done again. A hit found is given its answer,
 * Yoga's result processor's (the stored text, in the JSON type the Accept header takes), which the
 * `answer` steps amend in list order before it is written.
 */
export interface HitPath {
  /** Whether a request may be a hit, by its method, path and headers: only then is its body read before Yoga. */
  mayAnswer(req: IncomingMessage): boolean;
  /** Answers a hit and resolves true, or resolves false for Yoga to answer the request. */
  answer(req: IncomingMessage, res: ServerResponse, body: Buffer, arrived: number): Promise<boolean>;
}

/** The parameters of one operation as a POST's JSON body gives them, when they are nothing else. */
interface PlainParams {
  query: string;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
}

/** A request the hit path reads as a hit. */
interface Hit {
  readonly req: IncomingMessage;
  /** Its headers, as Yoga's Request would give them. */
  readonly headers: Pick<Headers, 'get'>;
  readonly params: PlainParams;
  /** Its operation's record, opened as useOperationRecords opens one, and handed to Yoga with the request. */
  readonly record: OperationRecord;
  /** Its caller: the `callerKey` of its Bearer credential, which every request read here has. */
  readonly caller: string;
  /** The answer the read cache found for it. */
  found: CachedAnswer | undefined;
}

/** A hit found, with its answer as it will be written. */
interface FoundHit extends Hit {
  found: CachedAnswer;
  readonly answer: { readonly status: 200; readonly headers: HeaderLines; body: string | Buffer };
}

/** What a plugin's work is for a hit: the functions its hooks call, at the points where Yoga would call those hooks. */
export interface HitStep {
  /** Whether the plugin would let a request with these headers reach the read cache as it is (never reading its body). */
  admits?(req: IncomingMessage): boolean;
  /** Its work on the request's parameters, before the cache's lookup and at it: false hands the request to Yoga. */
  read?(hit: Hit): boolean | undefined | Promise<boolean | undefined>;
  /** Its work on a hit found, on the way out. */
  answer?(hit: FoundHit): void | Promise<void>;
}

/**
 * What becomes of one plugin's work for a hit the hit path answers: the step that does it, or why
 * a hit needs none of it (`skipped`), or why the hit path may not answer at all while the plugin
 * is on (`off`: Yoga then answers every hit).
 */
export type OnHit = HitStep | { skipped: string } | { off: string };

/** The hit path the plugin list declares, in its order; undefined when a plugin that is on turns it off. */
export function hitPath(onHits: readonly OnHit[]): HitPath | undefined {
  if (onHits.some((onHit) => 'off' in onHit)) return undefined;
  const steps = onHits.filter((onHit): onHit is HitStep => !('skipped' in onHit));
  const admitting = steps.flatMap((step) => (step.admits ? [step.admits] : []));
  const reading = steps.flatMap((step) => (step.read ? [step.read] : []));
  const answering = steps.flatMap((step) => (step.answer ? [step.answer] : []));
  return {
    mayAnswer: (req) =>
      req.method === 'POST' &&
      req.url === '/graphql' &&
      req.headers['content-length'] !== undefined &&
      isJson(req.headers['content-type']) &&
      admitting.every((admits) => admits(req)),
    answer: async (req, res, body, arrived) => {
      const params = plainParams(body);
      const headers = nodeRequestHeaders(req);
      const credential = bearerCredential(headers.get('authorization'));
      if (!params || credential === undefined) return false;
      const record = OperationRecord.ofHeaders(headers, arrived);
      // From here on Yoga adopts the record, and finds what the steps did for it as done.
      openBeforeYoga(req, record);
      const hit: Hit = { req, headers, params, record, caller: callerKey(credential), found: undefined };
      for (const read of reading) {
        // Awaited only when it is a promise: a step done at once costs the hit no turn of the event loop.
        const done = read(hit);
        if ((done instanceof Promise ? await done : done) === false) return false;
      }
      const { found } = hit;
      if (!found) return false;
      const answer = {
        status: 200 as const,
        headers: new HeaderLines({
          'content-type': `${wholeResultType(headers.get('accept'))}; charset=utf-8`,
          'content-length': String(Buffer.byteLength(found.body)),
        }),
        body: found.body as string | Buffer,
      };
      const foundHit: FoundHit = { ...hit, found, answer };
      for (const step of answering) {
        const done = step(foundHit);
        if (done instanceof Promise) await done;
      }
      res.writeHead(answer.status, answer.headers.lines).end(answer.body);
      return true;
    },
  };
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
