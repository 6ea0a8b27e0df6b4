import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { idempotencyKeyOf, MAX_IDEMPOTENCY_KEY_LENGTH } from '../../src/http/idempotency-key.js';

/** The one reader of the Idempotency-Key header: what it takes, and everything it refuses. */
describe('the Idempotency-Key header', () => {
  it('is no key when it is not sent', () => {
    expect(idempotencyKeyOf(null)).toBeUndefined();
  });

  it('takes a structured-field string, its escapes undone, or a bare key', () => {
    expect(idempotencyKeyOf('"8e03978e-40d5-43e8-bc93-6894a57f9324"')).toEqual({ key: '8e03978e-40d5-43e8-bc93-6894a57f9324' });
    expect(idempotencyKeyOf('8e03978e-40d5-43e8-bc93-6894a57f9324')).toEqual({ key: '8e03978e-40d5-43e8-bc93-6894a57f9324' });
    expect(idempotencyKeyOf('"a \\"quoted\\" key, with a \\\\ and spaces"')).toEqual({ key: 'a "quoted" key, with a \\ and spaces' });
    expect(idempotencyKeyOf("Abc/123+=_~!#$%&'()*.;<>?@[]^`{|}")).toEqual({ key: "Abc/123+=_~!#$%&'()*.;<>?@[]^`{|}" });
    expect(idempotencyKeyOf('"malformed"')).toEqual({ key: 'malformed' });
    expect(idempotencyKeyOf('x'.repeat(MAX_IDEMPOTENCY_KEY_LENGTH))).toEqual({ key: 'x'.repeat(255) });
    expect(idempotencyKeyOf(`"${'x'.repeat(MAX_IDEMPOTENCY_KEY_LENGTH)}"`)).toEqual({ key: 'x'.repeat(255) });
  });

  it.each([
    ['empty', ''],
    ['an empty string', '""'],
    ['too long', 'x'.repeat(256)],
    ['too long once unquoted', `"${'x'.repeat(256)}"`],
    ['sent twice (joined by the HTTP layer)', 'key-1, key-2'],
    ['two strings', '"key-1", "key-2"'],
    ['a list without spaces', 'key-1,key-2'],
    ['with parameters', '"key";a=1'],
    ['an unclosed string', '"key'],
    ['text after the string', '"key"x'],
    ['an escape other than \\" and \\\\', '"k\\ey"'],
    ['an escape at the end', '"key\\"'],
    ['a space in a bare key', 'a key'],
    ['a quote inside a bare key', 'a"key'],
    ['a tab', '"a\tkey"'],
    ['a control character', '"a\u0001key"'],
    ['DEL', 'key\u007f'],
    ['a character outside ASCII', '"clé"'],
    ['a bare character outside ASCII', 'clé'],
  ])('refuses a value %s', (_what, header) => {
    expect(idempotencyKeyOf(header)).toBe('malformed');
  });

  it('reads back every key of printable ASCII, written as an sf-string', () => {
    const printable = fc.string({
      unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
      minLength: 1,
      maxLength: 255,
    });
    fc.assert(
      fc.property(printable, (key) => {
        const written = `"${key.replace(/[\\"]/g, (character) => `\\${character}`)}"`;
        expect(idempotencyKeyOf(written)).toEqual({ key });
      }),
    );
  });
});
