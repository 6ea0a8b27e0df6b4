import { describe, expect, it } from 'vitest';
import { inputRules, issuesOf, rules } from '../../src/schema/input-rules.js';
import { CERTIFICATE } from '../support/records.js';

const ok = (schema: { safeParse(v: unknown): { success: boolean } }, value: unknown) => schema.safeParse(value).success;

describe('field rules', () => {
  it('accepts names of 1 to 40 characters only', () => {
    expect([ok(rules.name, 'a'), ok(rules.name, 'x'.repeat(40))]).toEqual([true, true]);
    expect([ok(rules.name, ''), ok(rules.name, 'x'.repeat(41))]).toEqual([false, false]);
  });

  it('counts characters as code points, as the upstream does: an emoji is one character, not two', () => {
    expect([ok(rules.name, '🎬'.repeat(40)), ok(rules.name, '🎬'.repeat(41))]).toEqual([true, false]);
    expect([ok(rules.hotspotName, '🎬'.repeat(100)), ok(rules.hotspotName, '🎬'.repeat(101))]).toEqual([true, false]);
  });

  it('accepts hotspot names up to 100 characters', () => {
    expect([ok(rules.hotspotName, 'x'.repeat(100)), ok(rules.hotspotName, 'x'.repeat(101))]).toEqual([true, false]);
  });

  it.each([
    ['00:00:00', true],
    ['99:59:59', true],
    ['01:60:00', false],
    ['01:00:60', false],
    ['1:00:00', false],
    ['01:00', false],
    ['01:00:00 ', false],
  ])('time-code %s is %s', (value, valid) => {
    expect(ok(rules.timeCode, value)).toBe(valid);
  });

  it('wants hotspot links to be http(s) URLs of at most 100 characters', () => {
    expect(ok(rules.hotspotLink, 'https://example.com/a')).toBe(true);
    expect(ok(rules.hotspotLink, 'http://example.com/')).toBe(true);
    expect(ok(rules.hotspotLink, `https://example.com/${'a'.repeat(81)}`)).toBe(false);
    expect(ok(rules.hotspotLink, 'javascript:alert(1)')).toBe(false);
    expect(ok(rules.hotspotLink, 'example.com')).toBe(false);
  });

  it('accepts any finite coordinate, outside the suggested 25-75 too', () => {
    expect([ok(rules.coordinate, -1000), ok(rules.coordinate, 0.5), ok(rules.coordinate, Number.POSITIVE_INFINITY)]).toEqual([
      true,
      true,
      false,
    ]);
  });

  it('accepts a PEM X.509 certificate node:crypto can parse, and nothing else', () => {
    expect(ok(rules.certificate, CERTIFICATE)).toBe(true);
    expect(ok(rules.certificate, CERTIFICATE.replace(/[A-Z]{8}/, 'AAAAAAAA'))).toBe(false);
    expect(ok(rules.certificate, 'not a certificate')).toBe(false);
  });

  it.each([
    ['abc', true],
    ['a b', true],
    ['ünï', true],
    ['', false],
    ['.', false],
    ['..', false],
    ['a/b', false],
    ['a?b', false],
    ['a#b', false],
    ['a\nb', false],
  ])('id %j fits one path segment: %s', (value, valid) => {
    expect(ok(rules.id, value)).toBe(valid);
  });
});

describe('inputRules', () => {
  const schema = inputRules(
    { id: rules.id, name: rules.name.optional(), value: rules.categoryValue.optional() },
    { changes: ['name', 'value'] },
  );

  it('keeps clientMutationId and omitted fields as they are', () => {
    expect(schema.parse({ id: 'c', name: 'n', clientMutationId: 'm' })).toEqual({ id: 'c', name: 'n', clientMutationId: 'm' });
  });

  it('refuses explicit nulls and an update with nothing to change, with dotted paths', () => {
    const nulls = schema.safeParse({ id: 'c', name: null });
    expect(nulls.success ? [] : issuesOf(nulls.error.issues)).toEqual([
      { path: 'name', message: 'must not be null: omit the field to leave it unchanged' },
    ]);
    const empty = schema.safeParse({ id: 'c', clientMutationId: null });
    expect(empty.success ? [] : issuesOf(empty.error.issues)).toEqual([{ path: '', message: 'must change at least one of: name, value' }]);
  });
});
