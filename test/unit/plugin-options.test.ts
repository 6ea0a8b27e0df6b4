import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, defaultSettings, SETTINGS } from '../../src/config/settings.js';
import { createGateway } from '../../src/gateway.js';

const PLUGINS = new URL('../../src/plugins/', import.meta.url);

/** Every `@default` of an options field, with the field's name, from each plugin's source. */
function documentedDefaults(): Array<{ file: string; option: string; shown: string }> {
  return readdirSync(PLUGINS)
    .filter((name) => name.endsWith('.ts'))
    .flatMap((file) =>
      [...readFileSync(new URL(file, PLUGINS), 'utf8').matchAll(/@default ([^*\n]+?)\s*\*\/\s*\n\s*(\w+)\?:/g)].map((match) => ({
        file,
        option: match[2]!,
        shown: match[1]!,
      })),
    );
}

describe('plugin options named like a setting', () => {
  it('exist: the check below reads some', () => {
    expect(documentedDefaults().filter(({ option }) => option in SETTINGS).length).toBeGreaterThan(5);
  });

  it('document the setting’s own default, so the table and the plugins cannot disagree', () => {
    const defaults = defaultSettings() as Record<string, unknown>;
    const wrong = documentedDefaults()
      .filter(({ option }) => option in SETTINGS)
      .filter(({ option, shown }) => shown !== JSON.stringify(defaults[option]))
      .map(({ file, option, shown }) => `${file}: ${option} says @default ${shown}, the table ${JSON.stringify(defaults[option])}`);
    expect(wrong).toEqual([]);
  });
});

describe('a gateway made in code', () => {
  it('is refused what the environment is refused (SETTING_RULES), whatever the source of its settings', async () => {
    const upstreamUrl = new URL('http://127.0.0.1:9/v2');
    await expect(createGateway({ upstreamUrl, corsOrigins: ['*'], corsAllowCredentials: true })).rejects.toThrow(ConfigError);
    await expect(createGateway({ upstreamUrl, headersTimeoutMs: 5_000, requestTimeoutMs: 1_000 })).rejects.toThrow(
      'Invalid configuration: HEADERS_TIMEOUT_MS must not be longer than REQUEST_TIMEOUT_MS, which includes it.',
    );
  });

  it('starts with APQ_STORE_BYTES=0, and a hash alone is then not looked up', async () => {
    const gateway = await createGateway({ upstreamUrl: new URL('http://127.0.0.1:9/v2'), apqStoreBytes: 0 });
    try {
      const response = await gateway.yoga.fetch('http://gateway/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } } }),
      });
      expect([response.status, await response.json()]).toEqual([
        200,
        // Outside production every answer tells what it cost (COST_SHOWN): a refusal made no call.
        {
          errors: [{ message: 'Must provide query string.', extensions: { code: 'BAD_REQUEST' } }],
          extensions: { cost: { estimatedCalls: 0, actualCalls: 0 } },
        },
      ]);
    } finally {
      await gateway.close();
    }
  });
});
