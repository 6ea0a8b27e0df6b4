// What the load generator counts as a served GraphQL answer. bench/load.ts checks every answer's
// body with it, so it reads the string as it arrived, without parsing it.

const ERRORS = '"errors":';

/**
 * One result, or a batch's (a JSON array), each with data and no error: no `errors` list at any
 * depth holds one. Not merely no `"errors":` at all, because Tailcall (rows T and T1) passes the REST
 * envelope through as data, with its `"errors":[]`; an envelope that reports an error counts as one.
 */
export function isGraphQLData(body: unknown): boolean {
  if (typeof body !== 'string' || !/^\[?\{"data":/.test(body)) return false;
  for (let at = body.indexOf(ERRORS); at !== -1; at = body.indexOf(ERRORS, at + ERRORS.length)) {
    const list = at + ERRORS.length;
    if (!body.startsWith('[]', list) && !body.startsWith('null', list)) return false;
  }
  return true;
}
