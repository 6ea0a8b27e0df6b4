import { randomUUID } from 'node:crypto';

const ids = new WeakMap<Request, string>();

/**
 * The request id of one HTTP request: the caller's x-request-id when it is a sane token, so it can
 * be traced end to end, or a fresh UUID. Remembered per Request so the context, the logs and the
 * response header all agree.
 */
export function requestIdOf(request: Request): string {
  let id = ids.get(request);
  if (id === undefined) {
    id = requestIdFrom(request.headers.get('x-request-id'));
    ids.set(request, id);
  }
  return id;
}

/** Gives a Request the id its request was given before the Request was made (the record the hit path opened). */
export function adoptRequestId(request: Request, id: string): void {
  ids.set(request, id);
}

/** The id of a request whose `x-request-id` header is this, for answers written before a Request exists (src/server/http-server.ts). */
export function requestIdFrom(header: string | null): string {
  return header !== null && /^[\w.:-]{1,128}$/.test(header) ? header : randomUUID();
}
