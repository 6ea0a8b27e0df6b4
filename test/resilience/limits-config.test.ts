import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { DEFAULT_LIMITS } from '../../src/limits.js';

/** The limit variables as src/config.ts reads them: defaults, production defaults, bad values. */
describe('limit variables', () => {
  it('default to DEFAULT_LIMITS, with introspection and suggestions on outside production', () => {
    expect(loadConfig({}).limits).toEqual(DEFAULT_LIMITS);
    expect(DEFAULT_LIMITS).toMatchObject({ requestDeadlineMs: 15_000, upstreamMaxBytes: 10_485_760, maxUpstreamCalls: 10, upstreamRetries: 2, introspection: true, fieldSuggestions: true });
  });

  it('switch introspection and field suggestions off under NODE_ENV=production unless set', () => {
    expect(loadConfig({ NODE_ENV: 'production' }).limits).toMatchObject({ introspection: false, fieldSuggestions: false });
    expect(loadConfig({ NODE_ENV: 'production', INTROSPECTION: 'true' }).limits).toMatchObject({ introspection: true, fieldSuggestions: false });
  });

  it('read every variable', () => {
    const limits = loadConfig({
      REQUEST_DEADLINE_MS: '1000', UPSTREAM_MAX_BYTES: '2048', MAX_UPSTREAM_CALLS: '3', UPSTREAM_RETRIES: '0', UPSTREAM_RETRY_MAX_DELAY_MS: '5',
      BREAKER_ERROR_PERCENT: '20', BREAKER_MIN_CALLS: '7', BREAKER_RESET_MS: '500', BREAKER_WINDOW_MS: '3000',
      MAX_DEPTH: '4', MAX_ALIASES: '2', MAX_TOKENS: '300', MAX_DIRECTIVES: '1', MAX_COST: '99', INTROSPECTION: 'false', FIELD_SUGGESTIONS: 'true',
    }).limits;
    expect(limits).toEqual({
      requestDeadlineMs: 1000, upstreamMaxBytes: 2048, maxUpstreamCalls: 3, upstreamRetries: 0, retryMaxDelayMs: 5,
      breakerErrorPercent: 20, breakerMinCalls: 7, breakerResetMs: 500, breakerWindowMs: 3000,
      maxDepth: 4, maxAliases: 2, maxTokens: 300, maxDirectives: 1, maxCost: 99, introspection: false, fieldSuggestions: true,
    });
  });

  it('refuse a bad value, naming the variable', () => {
    expect(() => loadConfig({ UPSTREAM_RETRIES: '3' })).toThrow(new ConfigError('Invalid configuration: UPSTREAM_RETRIES must be a whole number from 0 to 2.'));
    expect(() => loadConfig({ MAX_UPSTREAM_CALLS: 'ten' })).toThrow(new ConfigError('Invalid configuration: MAX_UPSTREAM_CALLS must be a whole number from 1 to 1000.'));
    expect(() => loadConfig({ INTROSPECTION: 'yes' })).toThrow(new ConfigError('Invalid configuration: INTROSPECTION must be true or false.'));
  });
});
