/** What GraphiQL hands a fetcher: the operation, and the Headers tab. */
interface FetcherParams {
  query: string;
  variables?: unknown;
  operationName?: string | null;
}
interface FetcherOptions {
  headers?: Record<string, string>;
}

/**
 * GraphiQL's fetcher, in place of the one Yoga's GraphiQL builds. That one throws JavaScript
 * errors, and GraphiQL prints a thrown Error with its minified stack trace in the result pane
 * (renaming a tab's operation and pressing Run at once showed "Cannot infer operation …" and a
 * stack). This one throws only plain objects, which GraphiQL prints as their message, each a
 * sentence that says what to do; and an operation name the text no longer holds (the old name
 * right after a rename or a tab switch, when GraphiQL's parsed document is as stale as the name) is
 * dropped when the text names one operation at most, so the server runs the one it has.
 *
 * It runs in the browser: src/graphiql/assets.ts embeds its source text in GraphiQL's script, so
 * it may use nothing outside itself.
 */
export function graphiqlFetcher(endpoint: string) {
  const fail = (message: string) => ({ message });
  return async (params: FetcherParams, options: FetcherOptions = {}): Promise<unknown> => {
    let operationName = params.operationName ?? undefined;
    if (operationName !== undefined) {
      // The names the text gives its operations, with comments and strings left out.
      const text = params.query.replace(/"""[\s\S]*?"""|"(?:[^"\\\n]|\\.)*"|#[^\n]*/g, ' ');
      const names = [...text.matchAll(/\b(?:query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]*)/g)].map((match) => match[1]);
      if (!names.includes(operationName)) {
        if (names.length > 1) {
          throw fail(`The document has no operation named "${operationName}": choose the one to run with the arrow beside the Run button.`);
        }
        operationName = undefined;
      }
    }
    let response: Response;
    try {
      response = await fetch(endpoint, {
        method: 'POST',
        headers: { accept: 'application/graphql-response+json, application/json', 'content-type': 'application/json', ...options.headers },
        body: JSON.stringify({ query: params.query, variables: params.variables, operationName }),
      });
    } catch {
      throw fail('The gateway could not be reached: check that it is running and reachable, then press Run again.');
    }
    if (!/json/i.test(response.headers.get('content-type') ?? '')) {
      throw fail(`The gateway answered HTTP ${response.status} without a GraphQL result.`);
    }
    return response.json();
  };
}
