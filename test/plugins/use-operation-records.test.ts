import { createYoga } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { recordOf, requestRecords } from '../../src/operation-record.js';
import { useOperationRecords } from '../../src/plugins/use-operation-records.js';
import { useResponseCache } from '../../src/plugins/use-response-cache.js';
import { CacheLookups } from '../../src/state/cache-lookups.js';
import { InProcessResponseCache } from '../../src/state/response-cache.js';
import { post, yogaWith } from '../support/yoga.js';

describe('useOperationRecords', () => {
  /** What each operation's context held, seen from execution: its record's identity and names. */
  function observed() {
    const seen: Array<{ requestId: string; batch: unknown; operationName: unknown; operationType: unknown; ofRequest: number }> = [];
    const yoga = yogaWith(
      [
        {
          onExecutionResult: ({ context, serverContext }: { context: object; serverContext?: object }) => {
            const record = recordOf(context);
            seen.push({
              requestId: record.requestId,
              batch: record.batch,
              operationName: record.operationName,
              operationType: record.operationType,
              ofRequest: requestRecords(serverContext ?? context).indexOf(record),
            });
          },
        },
      ],
      { batching: true },
    );
    return { yoga, seen };
  }

  it('opens one record for a request, named as the document that ran says', async () => {
    const { yoga, seen } = observed();
    await post(yoga, { query: 'query Hello { hello }' }, { 'x-request-id': 'one' });
    expect(seen).toEqual([{ requestId: 'one', batch: undefined, operationName: 'Hello', operationType: 'query', ofRequest: 0 }]);
  });

  it('opens one record per operation of a batch, each held by its own context, in the batch’s order', async () => {
    const { yoga, seen } = observed();
    await post(yoga, [{ query: 'query A { hello }' }, { query: 'mutation B { rename(name: "x") }' }], { 'x-request-id': 'two' });
    expect(seen.toSorted((a, b) => a.ofRequest - b.ofRequest)).toEqual([
      { requestId: 'two', batch: { index: 0, size: 2 }, operationName: 'A', operationType: 'query', ofRequest: 0 },
      { requestId: 'two', batch: { index: 1, size: 2 }, operationName: 'B', operationType: 'mutation', ofRequest: 1 },
    ]);
  });

  it('must come before the plugins that read the records: without it they fail rather than run without their state', async () => {
    const yoga = createYoga({
      logging: false,
      plugins: [useResponseCache({ lookups: new CacheLookups(new InProcessResponseCache(1024 * 1024)), cacheTtlMs: 60_000 })],
    });
    const answer = await post(yoga, { query: '{ __typename }' }, { authorization: 'Bearer t' });
    expect(answer.body.errors?.[0]?.message).toBe('Unexpected error.');
    expect(useOperationRecords).toBeTypeOf('function');
  });
});
