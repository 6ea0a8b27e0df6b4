import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { GraphQLError } from 'graphql';
import { createSchema } from 'graphql-yoga';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RequestSummary } from '../../src/observability/request-summary.js';
import { recordOf } from '../../src/operation-record.js';
import { useRequestSummary } from '../../src/plugins/use-request-summary.js';
import { allParts, partsOf } from '../support/incremental.js';
import { recordCalls } from '../support/summaries.js';
import { ENDPOINT, post, postForParts, send, UUID, yogaWith } from '../support/yoga.js';

describe('useRequestSummary', () => {
  const summaries: RequestSummary[] = [];
  /** The statuses of the upstream calls an operation reports to its record (here, by operation name), as the gateway's Caller does. */
  const statuses: Record<string, Array<number | undefined>> = { Keys: [200, 404], Rename: [undefined] };
  const yoga = yogaWith([useRequestSummary({ onSummary: (summary) => summaries.push(summary) })], {
    batching: true,
    context: (context: { params?: { operationName?: string } }) => {
      recordCalls(recordOf(context), statuses[context.params?.operationName ?? ''] ?? []);
      return {};
    },
  });
  beforeEach(() => {
    summaries.length = 0;
  });

  /** The fields of a summary that are the same for every operation that ran without an upstream call or an error. */
  const ran = {
    client: { name: undefined, version: undefined },
    durationMs: expect.any(Number),
    status: 200,
    upstreamCalls: 0,
    executed: true,
    upstreamStatuses: [],
    outcome: 'ok',
    errorCodes: [],
  };

  it('sums up one operation once its response is ready: request id, client, operation, status and upstream calls', async () => {
    await post(
      yoga,
      { query: 'query Keys { hello }', operationName: 'Keys' },
      { 'x-request-id': 'req-1', 'apollographql-client-name': 'admin-console', 'apollographql-client-version': '2.0.1' },
    );
    expect(summaries).toEqual([
      {
        ...ran,
        requestId: 'req-1',
        client: { name: 'admin-console', version: '2.0.1' },
        operationName: 'Keys',
        operationType: 'query',
        upstreamCalls: 2,
        upstreamStatuses: [200, 404],
      },
    ]);
    expect(summaries[0]!.durationMs).toBeGreaterThanOrEqual(0);
    expect(summaries[0]).not.toHaveProperty('batch');
  });

  it('reads the name and type from the document that ran, and a fresh request id when none was sent', async () => {
    await post(yoga, { query: 'mutation Rename { rename(name: "x") }' }, { 'graphql-client-name': 'web' });
    expect(summaries).toEqual([
      {
        ...ran,
        requestId: expect.stringMatching(UUID),
        client: { name: 'web', version: undefined },
        operationName: 'Rename',
        operationType: 'mutation',
      },
    ]);
  });

  it('calls an answer with errors and some data partial, and one without data an error, each code once', async () => {
    await post(yoga, { query: '{ hello failure again: failure }' });
    await post(yoga, { query: '{ failure }' });
    expect(summaries.map(({ outcome, errorCodes, status }) => ({ outcome, errorCodes, status }))).toEqual([
      { outcome: 'partial', errorCodes: ['INTERNAL_SERVER_ERROR'], status: 200 },
      { outcome: 'error', errorCodes: ['INTERNAL_SERVER_ERROR'], status: 200 },
    ]);
  });

  it('sums up an operation refused before it ran, with the name the request gave', async () => {
    await post(yoga, { query: 'query Broken { nothing }', operationName: 'Broken' }, { 'x-request-id': 'req-2' });
    expect(summaries).toEqual([
      {
        ...ran,
        requestId: 'req-2',
        operationName: 'Broken',
        operationType: undefined,
        status: 400,
        executed: false,
        outcome: 'error',
        errorCodes: ['GRAPHQL_VALIDATION_FAILED'],
      },
    ]);
  });

  it('records an operation name that is not a GraphQL name of at most 64 characters as "other", sent or in the document', async () => {
    const longest = `Q${'a'.repeat(63)}`;
    await post(yoga, { query: '{ hello }', operationName: 'A'.repeat(300_000) });
    await post(yoga, { query: '{ hello }', operationName: 'not a name' });
    await post(yoga, { query: `query Q${'a'.repeat(64)} { hello }` });
    await post(yoga, { query: `query ${longest} { hello }` });
    expect(summaries.map((summary) => summary.operationName)).toEqual(['other', 'other', 'other', longest]);
  });

  it('sums up a request whose body is not JSON', async () => {
    await send(yoga, ENDPOINT, { method: 'POST', headers: { 'content-type': 'application/json', 'x-request-id': 'req-3' }, body: '{' });
    expect(summaries).toEqual([
      {
        ...ran,
        requestId: 'req-3',
        operationName: undefined,
        operationType: undefined,
        status: 400,
        executed: false,
        outcome: 'error',
        errorCodes: ['BAD_REQUEST'],
      },
    ]);
  });

  it('sums up each operation of a batch, in order, with its place in the batch and its own calls and errors', async () => {
    await post(
      yoga,
      [
        { query: 'query Keys { hello }', operationName: 'Keys' },
        { query: '{ nothing }' },
        { query: 'mutation Rename { rename(name: "x") }', operationName: 'Rename' },
        { query: 'query Keys { hello }', operationName: 'Keys' },
      ],
      { 'x-request-id': 'batch-1' },
    );
    expect(summaries).toEqual([
      {
        ...ran,
        requestId: 'batch-1',
        batch: { index: 0, size: 4 },
        operationName: 'Keys',
        operationType: 'query',
        upstreamCalls: 2,
        upstreamStatuses: [200, 404],
      },
      {
        ...ran,
        requestId: 'batch-1',
        batch: { index: 1, size: 4 },
        operationName: undefined,
        operationType: undefined,
        executed: false,
        outcome: 'error',
        errorCodes: ['GRAPHQL_VALIDATION_FAILED'],
      },
      {
        ...ran,
        requestId: 'batch-1',
        batch: { index: 2, size: 4 },
        operationName: 'Rename',
        operationType: 'mutation',
        upstreamCalls: 1,
        upstreamStatuses: [undefined],
      },
      {
        ...ran,
        requestId: 'batch-1',
        batch: { index: 3, size: 4 },
        operationName: 'Keys',
        operationType: 'query',
        upstreamCalls: 2,
        upstreamStatuses: [200, 404],
      },
    ]);
  });

  it('sums up a batch refused as a whole once, not once per operation', async () => {
    const limited = yogaWith([useRequestSummary({ onSummary: (summary) => summaries.push(summary) })], { batching: { limit: 2 } });
    const answer = await post(limited, [{ query: '{ hello }' }, { query: '{ hello }' }, { query: '{ hello }' }], {
      'x-request-id': 'batch-2',
    });
    expect(answer.status).toBe(413);
    expect(summaries).toEqual([
      {
        ...ran,
        requestId: 'batch-2',
        operationName: undefined,
        operationType: undefined,
        status: 413,
        executed: false,
        outcome: 'error',
        errorCodes: ['BAD_REQUEST'],
      },
    ]);
  });

  it('sums up nothing for a request outside the GraphQL endpoint', async () => {
    await send(yoga, 'http://yoga/nothing');
    expect(summaries).toEqual([]);
  });
});

describe('useRequestSummary, for an answer in parts', () => {
  const summaries: RequestSummary[] = [];
  /** While set, the list waits for it before its third item. */
  let gate: Promise<void> | undefined;
  /** Items 1 and 3 are found; item 2 is an error with a code of its own. */
  const schema = createSchema({
    typeDefs: 'type Query { items: [Item!]! } type Item { n: Int! found: Boolean! }',
    resolvers: {
      Query: {
        items: async function* () {
          yield { n: 1 };
          yield { n: 2 };
          if (gate) await gate;
          yield { n: 3 };
        },
      },
      Item: {
        found: ({ n }: { n: number }) => {
          if (n === 2) throw new GraphQLError('no item 2', { extensions: { code: 'NOT_FOUND' } });
          return true;
        },
      },
    },
  });
  const yoga = yogaWith([useDeferStream(), useRequestSummary({ onSummary: (summary) => summaries.push(summary) })], {
    schema,
    context: (context: object) => {
      recordCalls(recordOf(context), [200, 200]);
      return {};
    },
  });
  const streamed = (signal?: AbortSignal) =>
    postForParts(
      yoga,
      { query: 'query Items { items @stream(initialCount: 1) { n found } }' },
      { headers: { 'x-request-id': 'parts-1' }, signal },
    );
  beforeEach(() => {
    summaries.length = 0;
    gate = undefined;
  });

  it('sums the operation up once, when its last part is out: the codes of its later parts, how many parts there were', async () => {
    const response = await streamed();
    // The response is ready before its parts go out: nothing is summed up yet.
    expect(summaries).toEqual([]);
    const parts = await allParts(response);
    expect(summaries).toEqual([
      {
        requestId: 'parts-1',
        client: { name: undefined, version: undefined },
        operationName: 'Items',
        operationType: 'query',
        status: 200,
        durationMs: expect.any(Number),
        incremental: { parts: parts.length, firstPartMs: expect.any(Number), complete: true },
        upstreamCalls: 2,
        executed: true,
        upstreamStatuses: [200, 200],
        outcome: 'partial',
        errorCodes: ['NOT_FOUND'],
      },
    ]);
    expect(summaries[0]!.incremental!.firstPartMs).toBeLessThanOrEqual(summaries[0]!.durationMs);
  });

  it('sums it up when the client goes away before the last part, as incomplete', async () => {
    gate = new Promise(() => {});
    const client = new AbortController();
    const parts = partsOf(await streamed(client.signal));
    await parts.next();
    expect(summaries).toEqual([]);
    client.abort();
    await expect.poll(() => summaries.length).toBe(1);
    expect(summaries[0]).toMatchObject({ operationName: 'Items', status: 200, incremental: { complete: false } });
  });
});
