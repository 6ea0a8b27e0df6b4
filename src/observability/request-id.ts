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
    const header = request.headers.get('x-request-id');
    id = header !== null && /^[\w.:-]{1,128}$/.test(header) ? header : randomUUID();
    ids.set(request, id);
  }
  return id;
}
