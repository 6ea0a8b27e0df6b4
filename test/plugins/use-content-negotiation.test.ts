import { describe, expect, it } from 'vitest';
import { useContentNegotiation } from '../../src/plugins/use-content-negotiation.js';
import { useCSRFPrevention } from '../../src/plugins/use-csrf-prevention.js';
import { ENDPOINT, send, yogaWith } from '../support/yoga.js';

const MUTATION = JSON.stringify({ query: 'mutation { rename(name: "x") }' });

/** A gateway's order: negotiation, then the CSRF check; and a count of the operations that ran. */
function negotiating() {
  const ran: string[] = [];
  const yoga = yogaWith([useContentNegotiation(), useCSRFPrevention(), { onExecute: () => void ran.push('executed') }]);
  return { yoga, ran };
}

const postWith = (accept: string | undefined, contentType = 'application/json') => ({
  method: 'POST',
  headers: { 'content-type': contentType, ...(accept === undefined ? {} : { accept }) },
  body: MUTATION,
});

describe('useContentNegotiation', () => {
  it('refuses an Accept it cannot answer 406 NOT_ACCEPTABLE, in JSON, and runs nothing', async () => {
    const { yoga, ran } = negotiating();
    expect(await send(yoga, ENDPOINT, postWith('image/png'))).toEqual({
      status: 406,
      headers: {
        accept: 'application/graphql-response+json, application/json, multipart/mixed, text/event-stream',
        'content-type': 'application/json; charset=utf-8',
        'content-length': expect.any(String),
      },
      body: {
        errors: [
          {
            message:
              'No answer can be written in a type the Accept header allows: accept application/graphql-response+json or application/json. Nothing was run.',
            extensions: { code: 'NOT_ACCEPTABLE' },
          },
        ],
      },
    });
    expect(ran).toEqual([]);
  });

  it('refuses a Content-Type no parser reads 415 UNSUPPORTED_MEDIA_TYPE, in JSON', async () => {
    const { yoga, ran } = negotiating();
    const answer = await send(yoga, ENDPOINT, postWith('application/json', 'application/xml'));
    expect([answer.status, answer.headers['content-type'], answer.headers.accept, answer.body]).toEqual([
      415,
      'application/json; charset=utf-8',
      'application/json',
      {
        errors: [
          { message: "The body's Content-Type cannot be read: send application/json.", extensions: { code: 'UNSUPPORTED_MEDIA_TYPE' } },
        ],
      },
    ]);
    expect(ran).toEqual([]);
  });

  it('leaves a text/plain POST to the CSRF check after it, which refuses it 403', async () => {
    const answer = await send(negotiating().yoga, ENDPOINT, postWith(undefined, 'text/plain'));
    expect([answer.status, answer.body.errors[0].extensions.code]).toEqual([403, 'CSRF_HEADER_REQUIRED']);
  });

  // Decided before parsing as Yoga decides it after execution: one Accept it refuses would still withhold a written result.
  it.for([
    undefined,
    '',
    '*/*',
    'application/*',
    'application/json',
    'application/graphql-response+json',
    'application/json; charset=utf-8',
    'application/json; charset=iso-8859-1',
    'application/json;q=0',
    'text/html',
    'text/*',
    'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    'image/png',
    'application/xml',
    'multipart/mixed',
    'text/event-stream',
    'image/png, application/json',
    'APPLICATION/JSON',
    '*/json',
  ])('refuses Accept %j exactly when Yoga alone would answer 406', async (accept) => {
    const alone = await send(yogaWith([]), ENDPOINT, postWith(accept));
    const { yoga, ran } = negotiating();
    const negotiated = await send(yoga, ENDPOINT, postWith(accept));
    expect(alone.status === 406).toBe(negotiated.status === 406);
    expect(ran).toEqual(negotiated.status === 406 ? [] : ['executed']);
  });
});
