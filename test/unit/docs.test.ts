import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONFIGURATION_DOC, renderConfiguration } from '../../scripts/configuration-doc.js';
import { ErrorCode } from '../../src/errors.js';

/** The docs hold what the code does: generated parts are current, codes and commands exist, links resolve. */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const DOCS = ['README.md', 'CONTRIBUTING.md', ...readdirSync(join(ROOT, 'docs')).map((name) => `docs/${name}`)];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchor = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replaceAll(' ', '-');
const anchorsOf = (markdown: string) => new Set([...markdown.matchAll(/^#+ (.+)$/gm)].map((match) => anchor(match[1]!)));

describe('docs', () => {
  it('docs/configuration.md is what the settings table renders', () => {
    expect(readFileSync(CONFIGURATION_DOC, 'utf8'), 'docs/configuration.md is stale: run `npm run docs:write` and commit it').toBe(
      renderConfiguration(),
    );
  });

  it('docs/errors.md lists every code of src/errors.ts once, and no other', () => {
    const rows = [...read('docs/errors.md').matchAll(/^\| `([A-Z_]+)` \|/gm)].map((match) => match[1]);
    expect(rows.toSorted()).toEqual(Object.values(ErrorCode).toSorted());
  });

  it('names only npm scripts that exist', () => {
    const scripts = Object.keys(JSON.parse(read('package.json')).scripts as Record<string, string>);
    const sources = [...DOCS, ...['src', 'scripts', 'examples', 'test', 'bench'].flatMap((folder) => filesUnder(folder))];
    const named = sources.flatMap((file) => [...read(file).matchAll(/npm run ([a-z][\w:.-]*)/g)].map((match) => `${file}: ${match[1]}`));
    expect(named.filter((entry) => !scripts.includes(entry.split(': ')[1]!))).toEqual([]);
  });

  it('links only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const file of DOCS) {
      for (const [, target] of read(file).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [path, hash] = target!.split('#') as [string, string | undefined];
        const linked = path === '' ? file : relative(ROOT, join(ROOT, dirname(file), path));
        let text: string;
        try {
          text = read(linked);
        } catch {
          broken.push(`${file} -> ${target}`);
          continue;
        }
        if (hash !== undefined && !anchorsOf(text).has(hash)) broken.push(`${file} -> ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('keeps the README to what a newcomer reads in five minutes', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(250);
  });
});

function filesUnder(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|md|sh)$/.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}
