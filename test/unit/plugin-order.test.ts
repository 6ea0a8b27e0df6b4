import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway.js';
import { createLogger } from '../../src/observability/logger.js';

/**
 * The plugin order is declared once, by the list in src/gateway.ts, and beside each plugin what
 * becomes of its work for a read cache hit the hit path answers (`onHit`). CONTRIBUTING's walk
 * through a request names the plugins' files in the order a request meets them, which must be that
 * order; every entry says what a hit does of it, and each step of the hit path stands beside the
 * plugin whose work it does.
 */
describe('the plugin list', () => {
  const gatewaySource = readFileSync('src/gateway.ts', 'utf8');

  /** Each plugin of ours by the function its file exports, e.g. useJit → use-jit.ts. */
  const fileOf = new Map(
    readdirSync('src/plugins').flatMap((file) => {
      const exported = /export function (use[A-Z]\w*)\(/.exec(readFileSync(`src/plugins/${file}`, 'utf8'));
      return exported ? [[exported[1]!, file] as const] : [];
    }),
  );

  /** The source of the function `name` of src/gateway.ts. */
  const bodyOf = (name: string) => {
    const start = gatewaySource.indexOf(`function ${name}(`);
    expect(start).toBeGreaterThan(-1);
    return gatewaySource.slice(start, gatewaySource.indexOf('\n}\n', start));
  };

  /** The groups `gatewayPlugins` spreads, each a function of the file, in its order. */
  const groups = () => {
    const found = [...bodyOf('gatewayPlugins').matchAll(/\.\.\.(\w+)\(/g)].map(([, group]) => group!);
    expect(found.length).toBeGreaterThan(1);
    return found;
  };

  /** The plugins our files export, in the order src/gateway.ts lists them. */
  const listed = () =>
    groups().flatMap((group) =>
      [...bodyOf(group).matchAll(/\b(use[A-Z]\w*)\(/g)].flatMap(([, name]) => (fileOf.has(name!) ? [fileOf.get(name!)!] : [])),
    );

  it('is the same in CONTRIBUTING’s walk through a request as in the list of src/gateway.ts', () => {
    const contributing = readFileSync('CONTRIBUTING.md', 'utf8');
    const walk = contributing.slice(contributing.indexOf('## A request, from socket'), contributing.indexOf('### The operation'));
    const named = [...new Set([...walk.matchAll(/`(use-[a-z-]+\.ts)`/g)].map(([, file]) => file!))];
    expect(listed().toSorted()).toEqual([...fileOf.values()].toSorted());
    expect(named).toEqual(listed());
  });

  it('declares beside every plugin, ours and Yoga’s, what a hit does of it', () => {
    const entries = groups().flatMap((group) => [...bodyOf(group).matchAll(/\bplugin: (use[A-Z]\w*)\(/g)].map(([, name]) => name!));
    const calls = groups().flatMap((group) => [...bodyOf(group).matchAll(/\b(use[A-Z]\w*)\(/g)].map(([, name]) => name!));
    // Every plugin made in the list is the `plugin` of an entry, which its type makes give an `onHit`.
    expect(calls).toEqual(entries);
    expect(gatewaySource).toMatch(/export interface PluginEntry \{\n\s+plugin: [^\n]+;\n\s+onHit: OnHit;\n\}/);
  });

  it('says, at run time, for each plugin of a gateway with every plugin on, what becomes of its work for a hit', async () => {
    const gateway = await createGateway({
      upstreamUrl: new URL('http://127.0.0.1:9/v2'),
      logger: createLogger({ level: 'silent' }),
      production: false,
      cacheTtlMs: 60_000,
      rateLimit: 10,
      introspection: false,
      fieldSuggestions: false,
    });
    const described = gateway.plugins.map(({ onHit }) => {
      if ('skipped' in onHit) return onHit.skipped.length > 20;
      if ('off' in onHit) return onHit.off.length > 20;
      return [onHit.admits, onHit.read, onHit.answer].some((step) => typeof step === 'function');
    });
    expect(described).toEqual(gateway.plugins.map(() => true));
    // Yoga holds exactly the list's plugins beside its own.
    const held = (gateway.yoga as unknown as { plugins: unknown[] }).plugins;
    expect(gateway.plugins.every(({ plugin }) => held.includes(plugin))).toBe(true);
    expect(gateway.hitPath).toBeDefined();
    return gateway.close();
  });

  it('puts each step of the hit path beside the plugin whose work it does', () => {
    const steps = readFileSync('src/hit-path/steps.ts', 'utf8');
    /** Each step by its name, and the plugin its docblock says it stands for (`/** useX: …`). */
    const standsFor = new Map(
      [...steps.matchAll(/\/\*\*\s+(use[A-Z]\w*): [\s\S]*?\*\/\nexport (?:const|function) (\w+)/g)].map(([, plugin, step]) => [
        step!,
        plugin!,
      ]),
    );
    expect(standsFor.size).toBeGreaterThan(5);
    const declared = [...gatewaySource.matchAll(/plugin: (use[A-Z]\w*)\((?:(?!plugin:)[\s\S])*?onHit: (\w+)/g)].map(([, plugin, step]) => [
      step!,
      plugin!,
    ]);
    const stepsDeclared = declared.filter(([step]) => standsFor.has(step!));
    expect(stepsDeclared.map(([step]) => step).toSorted()).toEqual([...standsFor.keys()].toSorted());
    for (const [step, plugin] of stepsDeclared) expect([step, plugin]).toEqual([step, standsFor.get(step!)]);
  });
});
