import { describe, expect, it } from 'vitest';
import { codeForStatus, messageOf, retryAfterSeconds, upstreamFailure } from '../../src/upstream/errors.js';

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
});

describe('upstreamFailure', () => {
  it('makes one GraphQL error per envelope error object, keeping the original', () => {
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
          upstream: { status: 422, error: { code: 'invalid_field', field: 'name', message: 'name is too long' } },
        },
      },
      {
        message: 'value is empty',
        extensions: {
          code: 'BAD_USER_INPUT',
          upstream: { status: 422, error: { code: 'invalid_field', field: 'value', detail: 'value is empty' } },
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

  it('adds retryAfter to rate-limit errors', () => {
    const failure = upstreamFailure({ status: 429, errors: [{ message: 'slow down' }], retryAfter: '7' });
    expect(failure.extensions).toEqual({ code: 'RATE_LIMITED', retryAfter: 7, upstream: { status: 429, error: { message: 'slow down' } } });
  });
});
