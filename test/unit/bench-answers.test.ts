import { describe, expect, it } from 'vitest';
import { isGraphQLData } from '../../bench/graphql-answer.js';

/**
 * Which answers a GraphQL row of `npm run bench` counts as served. Tailcall's rows (T, T1) pass the
 * REST envelope through as data, `errors` field and all, so an envelope that reports no error must
 * count as served and one that reports an error must not, as a GraphQL error must not.
 */
const keys = '[{"id":"ak_001","name":"Key 1"}]';
const envelope = (errors: string) => `{"data":{"apiKeys":{"success":true,"result":${keys},"errors":${errors},"links":{}}}}`;

describe('a GraphQL row counts an answer as served', () => {
  it('when it has data and no error: the gateway, the floor, a batch', () => {
    expect(isGraphQLData(`{"data":{"apiKeys":{"edges":[]}}}`)).toBe(true);
    expect(isGraphQLData(`[{"data":{"a":1}},{"data":{"b":2}}]`)).toBe(true);
  });

  it("when Tailcall's envelope, passed through as data, holds no error (errors [] or null)", () => {
    expect(isGraphQLData(envelope('[]'))).toBe(true);
    expect(isGraphQLData(envelope('null'))).toBe(true);
    expect(isGraphQLData(`[${envelope('[]')},${envelope('[]')}]`)).toBe(true);
  });

  it('never when any errors list holds an error: at the top, first or last, in a batch, or in the envelope', () => {
    expect(isGraphQLData(`{"errors":[{"message":"Unexpected error."}],"data":null}`)).toBe(false);
    // Tailcall's own order: data first, errors after it.
    expect(isGraphQLData(`{"data":null,"errors":[{"message":"IOException: Request error"}]}`)).toBe(false);
    expect(isGraphQLData(`{"data":{"apiKeys":null},"errors":[{"message":"x"}]}`)).toBe(false);
    expect(isGraphQLData(`[{"data":{"a":1}},{"data":null,"errors":[{"message":"x"}]}]`)).toBe(false);
    expect(isGraphQLData(envelope('[{"code":"unauthorized","message":"Missing bearer token"}]'))).toBe(false);
    expect(isGraphQLData(`{"data":{"apiKeys":{"errors":[]}},"errors":[{"message":"x"}]}`)).toBe(false);
  });

  it('never when it is not a GraphQL result with data', () => {
    expect(isGraphQLData('{"success":true,"result":[],"errors":[],"links":{}}')).toBe(false);
    expect(isGraphQLData('Internal Server Error')).toBe(false);
    expect(isGraphQLData(undefined)).toBe(false);
  });
});
