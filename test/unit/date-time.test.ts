import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isIsoUtc } from '../../src/schema/date-time.js';

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** What the fields say, checked by letting Date compute them and reading them back: a rolled-over day or hour differs. */
function reference(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?Z$/.exec(text);
  if (!match) return false;
  const [year, month, day, hours, minutes, seconds] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  // setUTCFullYear, not Date.UTC, which reads years 0-99 as 1900-1999 (and 0000-02-29 exists, 1900-02-29 does not).
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hours, minutes, seconds, 0);
  return (
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    date.getUTCHours() === hours &&
    date.getUTCMinutes() === minutes &&
    date.getUTCSeconds() === seconds
  );
}

describe('DateTime', () => {
  it.each([
    ['2025-01-01T00:00:00.000Z', true],
    ['2024-02-29T23:59:59Z', true],
    ['2000-02-29T12:00:00.5Z', true],
    ['0000-02-29T00:00:00Z', true],
    ['2025-12-31T23:59:59.123456789Z', true],
    ['2025-02-29T00:00:00.000Z', false],
    ['1900-02-29T00:00:00.000Z', false],
    ['2025-04-31T00:00:00.000Z', false],
    ['2025-13-01T00:00:00.000Z', false],
    ['2025-01-00T00:00:00.000Z', false],
    ['2025-01-01T24:00:00.000Z', false],
    ['2025-01-01T23:60:00.000Z', false],
    ['2025-01-01T23:59:60.000Z', false],
    ['2025-01-01T00:00:00.000+00:00', false],
    ['2025-01-01 00:00:00.000Z', false],
  ])('%s is %s', (text, accepted) => {
    expect(isIsoUtc(text)).toBe(accepted);
  });

  it('accepts exactly the timestamps whose fields name a real instant, whatever the digits', () => {
    const field = (max: number) => fc.integer({ min: 0, max });
    fc.assert(
      fc.property(
        field(9999),
        field(13),
        field(32),
        field(25),
        field(61),
        field(61),
        fc.option(fc.stringMatching(/^\.\d{1,9}$/)),
        (year, month, day, hours, minutes, seconds, fraction) => {
          const text = `${pad(year, 4)}-${pad(month)}-${pad(day)}T${pad(hours)}:${pad(minutes)}:${pad(seconds)}${fraction ?? ''}Z`;
          expect(isIsoUtc(text)).toBe(reference(text));
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('accepts what Date writes, for any instant of years 0 to 9999', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('0000-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true }),
        (date) => {
          expect(isIsoUtc(date.toISOString())).toBe(true);
        },
      ),
    );
  });
});
