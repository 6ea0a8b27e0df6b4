import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * The plugin order is declared once, by the list in src/gateway.ts; CONTRIBUTING's walk through a
 * request names the plugins' files in the order a request meets them, which must be that order.
 */
describe('the plugin order', () => {
  /** Each plugin of ours by the function its file exports, e.g. useJit → use-jit.ts. */
  const fileOf = new Map(
    readdirSync('src/plugins').flatMap((file) => {
      const exported = /export function (use[A-Z]\w*)\(/.exec(readFileSync(`src/plugins/${file}`, 'utf8'));
      return exported ? [[exported[1]!, file] as const] : [];
    }),
  );

  /**
   * The files of the plugins in the order src/gateway.ts puts them: `gatewayPlugins` spreads the
   * lists of its groups, each a function of the file, in its own order.
   */
  function listed(): string[] {
    const gateway = readFileSync('src/gateway.ts', 'utf8');
    const bodyOf = (name: string) => {
      const start = gateway.indexOf(`function ${name}(`);
      expect(start).toBeGreaterThan(-1);
      return gateway.slice(start, gateway.indexOf('\n}\n', start));
    };
    const groups = [...bodyOf('gatewayPlugins').matchAll(/\.\.\.(\w+)\(/g)].map(([, group]) => group!);
    expect(groups.length).toBeGreaterThan(1);
    return groups.flatMap((group) =>
      [...bodyOf(group).matchAll(/\b(use[A-Z]\w*)\(/g)].flatMap(([, name]) => (fileOf.has(name!) ? [fileOf.get(name!)!] : [])),
    );
  }

  it('is the same in CONTRIBUTING’s walk through a request as in the list of src/gateway.ts', () => {
    const contributing = readFileSync('CONTRIBUTING.md', 'utf8');
    const walk = contributing.slice(contributing.indexOf('## A request, from socket'), contributing.indexOf('### The operation'));
    const named = [...new Set([...walk.matchAll(/`(use-[a-z-]+\.ts)`/g)].map(([, file]) => file!))];
    expect(listed().toSorted()).toEqual([...fileOf.values()].toSorted());
    expect(named).toEqual(listed());
  });
});
