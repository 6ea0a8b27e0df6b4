/**
 * The gateway's own caching policy of an answer: its caller's alone, kept by no cache. Every answer
 * may hold data only its caller's token may see (errors included, and GraphiQL may carry a preset
 * token), so no shared cache may keep one to replay it to someone else.
 */
export const NO_STORE = 'private, no-store';

/** Whether a request's Cache-Control asks for a fresh answer (`no-cache` or `no-store`): the read cache is not read for it. */
export const asksFresh = (cacheControl: string | null | undefined) => /\bno-(cache|store)\b/i.test(cacheControl ?? '');
