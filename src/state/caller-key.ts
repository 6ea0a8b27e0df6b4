import { hash } from 'node:crypto';
import { bearerCredential } from '../http/bearer.js';

/**
 * What the shared stores know a caller by: the SHA-256 of its credential (`Bearer <token>`), never
 * the credential itself, in a key or a value. Two callers with different tokens never
 * share a key; one caller's token cannot be read back out of Redis.
 */
export function callerKey(credential: string): string {
  return hash('sha256', credential, 'base64url');
}

const keys = new WeakMap<Request, string | null>();

/**
 * `callerKey` of a request's Bearer credential, in its one spelling (`bearerCredential`), hashed once
 * per request however many stores ask; undefined for a request without one.
 */
export function callerKeyOf(request: Request): string | undefined {
  let key = keys.get(request);
  if (key === undefined) {
    const credential = bearerCredential(request.headers.get('authorization'));
    key = credential === undefined ? null : callerKey(credential);
    keys.set(request, key);
  }
  return key ?? undefined;
}
