import type { Dispatcher } from 'undici';
import { upstreamBadResponse, upstreamFailure } from './errors.js';

/** What the upstream answered to one call, before the envelope is read. */
export interface Answer {
  status: number;
  /** Whether Content-Type says JSON; `text` is empty otherwise. */
  json: boolean;
  text: string;
  retryAfter: string | undefined;
}

/** The contract's response envelope, as far as the gateway reads it. */
export interface Envelope {
  result: unknown;
  links: unknown;
}

/**
 * Reads an undici response: its status, Retry-After and body. A body that is not JSON is never
 * read, only discarded: an HTML error page says nothing more than its status.
 */
export async function readAnswer(response: Dispatcher.ResponseData): Promise<Answer> {
  const json = isJsonType(firstOf(response.headers['content-type']));
  const retryAfter = firstOf(response.headers['retry-after']);
  if (!json) {
    await response.body.dump();
    return { status: response.statusCode, json, text: '', retryAfter };
  }
  return { status: response.statusCode, json, text: await response.body.text(), retryAfter };
}

/**
 * The envelope of a 2xx answer, or the failure it reports. Only `success: true` is a success: a
 * `"false"`, a missing `success` with errors, or anything else but a JSON envelope is not.
 * `token` is the caller's, removed wherever the upstream echoes it in an error.
 */
export function envelopeOf({ status, json, text, retryAfter }: Answer, token: string): Envelope {
  const parsed = json ? parseJson(text) : undefined;
  const envelope =
    typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  if (status < 200 || status > 299) {
    throw upstreamFailure({ status, errors: envelope?.errors, retryAfter, token });
  }
  if (!json) throw upstreamBadResponse('the Content-Type is not JSON', status);
  if (parsed === undefined) throw upstreamBadResponse('the body is not JSON', status);
  if (!envelope || !('result' in envelope)) throw upstreamBadResponse('the body is not a response envelope', status);
  if (envelope.success === true) return { result: envelope.result, links: envelope.links };
  if (envelope.success === false || (Array.isArray(envelope.errors) && envelope.errors.length > 0)) {
    throw upstreamFailure({ status, errors: envelope.errors, retryAfter, token });
  }
  throw upstreamBadResponse('the envelope’s success is not true', status);
}

const firstOf = (header: string | string[] | undefined) => (Array.isArray(header) ? header[0] : header);

/** `application/json` or any `+json` type, as the contract's "bodies are JSON" is served in practice. */
function isJsonType(contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
