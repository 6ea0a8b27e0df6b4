import { describe, expect, it } from 'vitest';
import { nextCursorFromLinks } from '../../src/upstream/links.js';

describe('nextCursorFromLinks', () => {
  it.each([
    ['an absolute URL in links.next', { next: 'https://api.example.com/v2/api_keys?limit=25&cursor=abc%3D' }, 'abc='],
    ['a URL on another host (only the cursor is taken)', { next: 'https://evil.example/steal?cursor=c2' }, 'c2'],
    ['a relative URL in links.next', { next: '/v2/api_keys?cursor=rel' }, 'rel'],
    ['a bare cursor in links.next', { next: 'eyJvZmZzZXQiOjI1fQ' }, 'eyJvZmZzZXQiOjI1fQ'],
    ['links.next_cursor', { next_cursor: 'nc' }, 'nc'],
    ['links.cursor', { cursor: 'lc' }, 'lc'],
    ['links.next before next_cursor', { next: 'n', next_cursor: 'nc' }, 'n'],
  ])('reads %s', (_, links, cursor) => {
    expect(nextCursorFromLinks(links)).toBe(cursor);
  });

  it.each([
    ['missing links', undefined],
    ['null links', null],
    ['empty links', {}],
    ['null next', { next: null }],
    ['empty next', { next: '' }],
  ])('reads %s as the last page', (_, links) => {
    expect(nextCursorFromLinks(links)).toBeNull();
  });

  it.each([
    ['a URL without a cursor parameter', { next: 'https://api.example.com/v2/api_keys?limit=25' }],
    ['a non-string next', { next: 42 }],
    ['links that are an array', ['x']],
    ['links that are a string', 'x'],
  ])('reports %s as unreadable', (_, links) => {
    expect(nextCursorFromLinks(links)).toBeUndefined();
  });
});
