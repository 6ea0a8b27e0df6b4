/** One HTTP request a client library sent. */
export interface SentRequest {
  method: string;
  url: URL;
  /** The parsed JSON body of a POST (an array for a batch); undefined for a GET. */
  body: unknown;
}

/** fetch that records each request before sending it, so a test can assert how a client library speaks HTTP. */
export function recordingFetch(sent: SentRequest[]): typeof fetch {
  return async (input, init) => {
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    sent.push({ method: init?.method ?? 'GET', url: new URL(String(input)), body });
    return fetch(input, init);
  };
}
