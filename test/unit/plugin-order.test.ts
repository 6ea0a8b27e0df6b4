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

  it('is the same in CONTRIBUTING’s walk through a request as in the list of src/gateway.ts', () => {
    const gateway = readFileSync('src/gateway.ts', 'utf8');
    const list = gateway.slice(gateway.indexOf('function gatewayPlugins('));
    const listed = [...list.matchAll(/\b(use[A-Z]\w*)\(/g)].flatMap(([, name]) => (fileOf.has(name!) ? [fileOf.get(name!)!] : []));
    const contributing = readFileSync('CONTRIBUTING.md', 'utf8');
    const walk = contributing.slice(contributing.indexOf('## A request, from socket'), contributing.indexOf('### The operation'));
    const named = [...new Set([...walk.matchAll(/`(use-[a-z-]+\.ts)`/g)].map(([, file]) => file!))];
    expect(listed.length).toBe(fileOf.size);
    expect(named).toEqual(listed);
  });
});
