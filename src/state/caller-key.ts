import { createHash } from 'node:crypto';

/**
 * What the shared stores know a caller by: the SHA-256 of its credential (the whole Authorization
 * header), never the credential itself, in a key or a value. Two callers with different tokens never
 * share a key; one caller's token cannot be read back out of Redis.
 */
export function callerKey(credential: string): string {
  return createHash('sha256').update(credential).digest('base64url');
}

const keys = new WeakMap<Request, string>();

/** `callerKey` of a request's Authorization header, hashed once per request however many stores ask. */
export function callerKeyOf(request: Request, authorization: string): string {
  let key = keys.get(request);
  if (key === undefined) {
    key = callerKey(authorization);
    keys.set(request, key);
  }
  return key;
}
