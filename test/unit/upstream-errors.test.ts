import { describe, expect, it } from 'vitest';
import { codeForStatus, messageOf, retryAfterSeconds, UPSTREAM_ERROR_BOUNDS, upstreamFailure } from '../../src/upstream/errors.js';

describe('codeForStatus', () => {
  it.each([
    [400, 'BAD_USER_INPUT'],
    [422, 'BAD_USER_INPUT'],
    [401, 'UNAUTHENTICATED'],
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
    [409, 'CONFLICT'],
    [429, 'RATE_LIMITED'],
    [500, 'UPSTREAM_ERROR'],
    [418, 'UPSTREAM_ERROR'],
    [302, 'UPSTREAM_ERROR'],
    [200, 'UPSTREAM_ERROR'],
  ])('maps HTTP %i to %s', (status, code) => {
    expect(codeForStatus(status)).toBe(code);
  });
});

describe('messageOf', () => {
  it.each([
    [{ message: 'm', detail: 'd' }, 'm'],
    [{ detail: 'd', title: 't' }, 'd'],
    [{ title: 't', error: 'e' }, 't'],
    [{ error: 'e', description: 'x' }, 'e'],
    [{ description: 'x' }, 'x'],
    [{ message: '', detail: 'd' }, 'd'],
    ['plain string', 'plain string'],
  ])('takes the message of %j', (error, message) => {
    expect(messageOf(error)).toBe(message);
  });

  it('has none for an object without text', () => {
    expect(messageOf({ code: 42 })).toBeUndefined();
  });
});

describe('retryAfterSeconds', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it('reads delta-seconds and HTTP dates', () => {
    expect(retryAfterSeconds('120', now)).toBe(120);
    expect(retryAfterSeconds('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30);
    expect(retryAfterSeconds('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(retryAfterSeconds('soon', now)).toBeUndefined();
    expect(retryAfterSeconds(undefined, now)).toBeUndefined();
  });

  it('caps what no client would wait for at a day, even past what a JSON number holds', () => {
    expect(retryAfterSeconds('86401', now)).toBe(86_400);
    expect(retryAfterSeconds('9'.repeat(400), now)).toBe(86_400);
    expect(retryAfterSeconds('Fri, 01 Jan 2100 00:00:00 GMT', now)).toBe(86_400);
  });
});

describe('upstreamFailure', () => {
  it('makes one GraphQL error per envelope error object, with its message, code and field', () => {
    const failure = upstreamFailure({
      status: 422,
      errors: [
        { code: 'invalid_field', field: 'name', message: 'name is too long' },
        { code: 'invalid_field', field: 'value', detail: 'value is empty' },
      ],
    });
    expect([failure, ...failure.additional].map((e) => ({ message: e.message, extensions: e.extensions }))).toEqual([
      {
        message: 'name is too long',
        extensions: {
          code: 'BAD_USER_INPUT',
          upstream: { status: 422, error: { message: 'name is too long', code: 'invalid_field', field: 'name' } },
        },
      },
      {
        message: 'value is empty',
        extensions: {
          code: 'BAD_USER_INPUT',
          upstream: { status: 422, error: { message: 'value is empty', code: 'invalid_field', field: 'value' } },
        },
      },
    ]);
  });

  it('falls back to one generic error naming the status', () => {
    const failure = upstreamFailure({ status: 503, errors: undefined });
    expect(failure.message).toBe('The upstream service answered with HTTP status 503.');
    expect(failure.extensions).toEqual({ code: 'UPSTREAM_ERROR', upstream: { status: 503 } });
    expect(failure.additional).toEqual([]);
  });

  it(`maps the first ${UPSTREAM_ERROR_BOUNDS.errors} error objects and counts the rest in one more error`, () => {
    const errors = Array.from({ length: 100_000 }, (_, i) => ({ message: `e${i}` }));
    const failure = upstreamFailure({ status: 400, errors });
    const all = [failure, ...failure.additional];
    expect(all.map((error) => error.message)).toEqual([
      ...Array.from({ length: UPSTREAM_ERROR_BOUNDS.errors }, (_, i) => `e${i}`),
      `The upstream service reported ${100_000 - UPSTREAM_ERROR_BOUNDS.errors} more errors, not shown.`,
    ]);
    expect(all.at(-1)!.extensions).toEqual({ code: 'BAD_USER_INPUT', upstream: { status: 400, omittedErrors: 99_980 } });
  });

  it('passes on only message, code and field, cut to length, with the caller’s token redacted', () => {
    const token = 'tok_0123456789abcdef';
    const failure = upstreamFailure({
      status: 500,
      token,
      errors: [
        {
          message: `${'x'.repeat(600)} for ${token}`,
          code: `E${'9'.repeat(200)}`,
          field: 'name',
          stack: 'Error: at /srv/app/db.js:10 (db-7.internal:5432)',
          host: 'db-7.internal',
          headers: { authorization: `Bearer ${token}` },
        },
        { message: `refused: Authorization: Bearer ${token}`, code: 42 },
      ],
    });
    const [first, second] = [failure, ...failure.additional];
    expect(first!.message).toBe(`${'x'.repeat(500)}…`);
    expect(first!.extensions.upstream).toEqual({
      status: 500,
      error: { message: `${'x'.repeat(500)}…`, code: `E${'9'.repeat(99)}…`, field: 'name' },
    });
    expect(second!.message).toBe('refused: Authorization: Bearer [redacted]');
    expect(second!.extensions.upstream).toEqual({
      status: 500,
      error: { message: 'refused: Authorization: Bearer [redacted]', code: '42' },
    });
    expect(JSON.stringify([first, second].map((e) => [e!.message, e!.extensions]))).not.toContain(token);
  });

  it('never cuts a message between the halves of a surrogate pair', () => {
    const failure = upstreamFailure({ status: 400, errors: [{ message: `${'a'.repeat(499)}😀😀` }] });
    expect(failure.message).toBe(`${'a'.repeat(499)}…`);
  });

  it('adds retryAfter to rate-limit errors', () => {
    const failure = upstreamFailure({ status: 429, errors: [{ message: 'slow down' }], retryAfter: '7' });
    expect(failure.extensions).toEqual({ code: 'RATE_LIMITED', retryAfter: 7, upstream: { status: 429, error: { message: 'slow down' } } });
  });
});
