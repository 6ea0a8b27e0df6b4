import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_VARIABLES, loadSettings, retiredVariableWarnings, shownSettings } from '../../src/config/load.js';
import { flag, isSecret } from '../../src/config/parsers.js';
import { ConfigError, defaultSettings, type Environment, RETIRED_VARIABLES, SETTING_RULES, SETTINGS } from '../../src/config/settings.js';

type Spec = (typeof SETTINGS)[keyof typeof SETTINGS];

const DEVELOPMENT: Environment = { production: false };
const PRODUCTION: Environment = { production: true };

/** A setting's value while its variable is unset, as the table gives it. */
const tableDefault = (spec: Spec, environment: Environment): unknown =>
  typeof spec.default === 'function' ? (spec.default as (environment: Environment) => unknown)(environment) : spec.default;

/** Every setting's value while no variable is set, as the table gives it. */
const tableDefaults = (environment: Environment) =>
  Object.fromEntries(Object.entries(SETTINGS).map(([key, spec]) => [key, tableDefault(spec, environment)]));

/**
 * A value of the setting's variable that is not its default in production (the samples set
 * NODE_ENV=production), and what it reads as, where the table says enough: a flag's other value,
 * or the smallest number of a whole number's documented range `min–max` (the next one when that is
 * the default). Undefined for the other settings, which SAMPLES gives a value.
 */
function derivedSample(spec: Spec): [raw: string, value: unknown] | undefined {
  const unset = tableDefault(spec, PRODUCTION);
  if (spec.parse === flag) return [String(!unset), !unset];
  const range = /^(\d+)–\d+$/.exec(spec.parse.description ?? '');
  if (!range) return undefined;
  const min = Number(range[1]);
  const value = min === unset ? min + 1 : min;
  return [String(value), value];
}

/** A value of every other variable, and what it reads as; none is the variable's default in production. */
const SAMPLES: Record<string, [raw: string, value: unknown]> = {
  NODE_ENV: ['production', true],
  RATE_LIMIT_UNIT: ['operations', 'operations'],
  COST_SHOWN: ['always', 'always'],
  HOST: ['127.0.0.1', '127.0.0.1'],
  UPSTREAM_URL: ['https://api.example.com/v2/', new URL('https://api.example.com/v2')],
  TRUSTED_DOCUMENTS: ['manifest.json', ['manifest.json']],
  CORS_ORIGINS: ['https://a.example, https://b.example', ['https://a.example', 'https://b.example']],
  LOG_LEVEL: ['debug', 'debug'],
  OTEL_EXPORTER_OTLP_ENDPOINT: ['http://collector:4318', 'http://collector:4318'],
  METRICS_CLIENT_NAMES: ['web-app, admin@2', ['web-app', 'admin@2']],
  OTEL_SERVICE_NAME: ['gw', 'gw'],
  GATEWAY_REVISION: ['0f3c2a1', '0f3c2a1'],
  REDIS_URL: ['rediss://:secret@cache.internal:6380/2', new URL('rediss://:secret@cache.internal:6380/2')],
  REDIS_SENTINELS: [
    'sentinel-0.redis:26379, [fd00::7]:26379',
    [
      { host: 'sentinel-0.redis', port: 26379 },
      { host: 'fd00::7', port: 26379 },
    ],
  ],
  REDIS_SENTINEL_MASTER: ['mymaster', 'mymaster'],
  REDIS_CLUSTER_NODES: [
    '10.0.0.1:6379,redis-1.redis:7000',
    [
      { host: '10.0.0.1', port: 6379 },
      { host: 'redis-1.redis', port: 7000 },
    ],
  ],
  REDIS_PASSWORD: ['secret', 'secret'],
  REDIS_KEY_PREFIX: ['tenant-a:', 'tenant-a:'],
  FORWARD_HEADERS: [
    'Accept-Language, x-tenant-id=x-vms-tenant',
    [
      { name: 'accept-language', upstreamName: 'accept-language' },
      { name: 'x-tenant-id', upstreamName: 'x-vms-tenant' },
    ],
  ],
  RETURN_HEADERS: ['RateLimit-Remaining, deprecation', ['ratelimit-remaining', 'deprecation']],
  DEBUG_UPSTREAM_KEY: ['a-debugging-key-of-ours', 'a-debugging-key-of-ours'],
  UPSTREAM_USER_AGENT: ['vms-graphql-gateway/0.1.0 (team-a)', 'vms-graphql-gateway/0.1.0 (team-a)'],
};

const sampleOf = (spec: Spec) => derivedSample(spec) ?? SAMPLES[spec.env]!;

/**
 * Variables that exclude one another (SETTING_RULES): each list is read in a load of its own, with
 * every other variable; a variable in none of them is read in every load.
 */
const ALTERNATIVES = [
  ['REDIS_URL'],
  ['REDIS_SENTINELS', 'REDIS_SENTINEL_MASTER', 'REDIS_PASSWORD'],
  ['REDIS_CLUSTER_NODES', 'REDIS_PASSWORD'],
];

/** The settings table as the environment reaches it: defaults, production defaults, every variable, bad values. */
describe('settings', () => {
  it('default to the table, with introspection, suggestions, GraphiQL and any origin on outside production', () => {
    expect(defaultSettings()).toEqual(tableDefaults(DEVELOPMENT));
    expect(loadSettings({})).toEqual(tableDefaults(DEVELOPMENT));
    expect(loadSettings({})).toMatchObject({
      production: false,
      introspection: true,
      fieldSuggestions: true,
      graphiql: true,
      corsOrigins: ['*'],
      sandbox: true,
    });
  });

  it('switch introspection, suggestions, GraphiQL and the any-origin default off under NODE_ENV=production unless set', () => {
    const upstream = { UPSTREAM_URL: 'https://api.example.com/v2' };
    const production = loadSettings({ NODE_ENV: 'production', ...upstream });
    expect(production).toEqual({ ...tableDefaults(PRODUCTION), production: true, upstreamUrl: new URL(upstream.UPSTREAM_URL) });
    expect(production).toMatchObject({
      production: true,
      introspection: false,
      fieldSuggestions: false,
      graphiql: false,
      corsOrigins: [],
      sandbox: false,
      metricsClientNames: [],
    });
    expect(loadSettings({ NODE_ENV: 'production', INTROSPECTION: 'true', ...upstream })).toMatchObject({
      introspection: true,
      fieldSuggestions: false,
    });
  });

  it('read every variable', () => {
    const specs = Object.values(SETTINGS);
    expect(new Set(ENVIRONMENT_VARIABLES).size, 'one variable per setting').toBe(specs.length);
    expect(Object.keys(SAMPLES).sort(), 'SAMPLES covers exactly the settings that are neither flags nor numbers').toEqual(
      specs
        .filter((spec) => derivedSample(spec) === undefined)
        .map((spec) => spec.env)
        .sort(),
    );
    for (const spec of specs) expect(sampleOf(spec)[1], `${spec.env} sampled with its default`).not.toEqual(tableDefault(spec, PRODUCTION));

    const alternative = new Set(ALTERNATIVES.flat());
    for (const chosen of ALTERNATIVES) {
      const read = specs.filter((spec) => !alternative.has(spec.env) || chosen.includes(spec.env));
      const env = Object.fromEntries(read.map((spec) => [spec.env, sampleOf(spec)[0]]));
      expect(loadSettings(env), chosen.join()).toEqual(
        Object.fromEntries(
          Object.entries(SETTINGS).map(([key, spec]) => [key, read.includes(spec) ? sampleOf(spec)[1] : tableDefault(spec, PRODUCTION)]),
        ),
      );
    }
  });

  it('refuse a bad value, naming the variable', () => {
    expect(() => loadSettings({ UPSTREAM_RETRIES: '3' })).toThrow(
      new ConfigError('Invalid configuration: UPSTREAM_RETRIES must be a whole number from 0 to 2.'),
    );
    expect(() => loadSettings({ MAX_UPSTREAM_CALLS: 'ten' })).toThrow(
      new ConfigError('Invalid configuration: MAX_UPSTREAM_CALLS must be a whole number from 1 to 1000.'),
    );
    expect(() => loadSettings({ INTROSPECTION: 'yes' })).toThrow(
      new ConfigError('Invalid configuration: INTROSPECTION must be true or false.'),
    );
    expect(() => loadSettings({ LOG_LEVEL: 'loud' })).toThrow(
      new ConfigError('Invalid configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent.'),
    );
  });

  it.for(['prod', 'Production', 'staging'])('refuse NODE_ENV=%s rather than read it as development', (value) => {
    expect(() => loadSettings({ NODE_ENV: value })).toThrow(
      new ConfigError('Invalid configuration: NODE_ENV must be one of production, development, test.'),
    );
  });

  it('refuse credentials in UPSTREAM_URL, which would be dropped', () => {
    expect(() => loadSettings({ UPSTREAM_URL: 'https://user:secret@api.example.com/v2' })).toThrow(
      new ConfigError(
        'Invalid configuration: UPSTREAM_URL must not hold a user or password: the gateway sends each caller’s own bearer token.',
      ),
    );
  });

  it('refuse the combinations SETTING_RULES lists, each with its own message', () => {
    const [noUpstream, cleartext, credentials, timeouts, metricsPort, twoRedis, sentinelsAlone, passwordAlone] = SETTING_RULES.map(
      ({ message }) => new ConfigError(`Invalid configuration: ${message}`),
    );
    expect(() => loadSettings({ NODE_ENV: 'production' })).toThrow(noUpstream);
    expect(() => loadSettings({ SANDBOX: 'false' })).toThrow(noUpstream);
    expect(loadSettings({ NODE_ENV: 'production', SANDBOX: 'true' })).toMatchObject({ sandbox: true, upstreamUrl: undefined });
    expect(() => loadSettings({ NODE_ENV: 'production', UPSTREAM_URL: 'http://api.internal/v2' })).toThrow(cleartext);
    expect(
      loadSettings({ NODE_ENV: 'production', UPSTREAM_URL: 'http://api.internal/v2', UPSTREAM_ALLOW_HTTP: 'true' }).upstreamUrl,
    ).toEqual(new URL('http://api.internal/v2'));
    for (const loopback of ['http://127.0.0.1:8080/v2', 'http://localhost/v2', 'http://[::1]:9/v2']) {
      expect(loadSettings({ NODE_ENV: 'production', UPSTREAM_URL: loopback }).upstreamUrl).toEqual(new URL(loopback));
    }
    expect(loadSettings({ UPSTREAM_URL: 'http://api.internal/v2' }).upstreamUrl).toEqual(new URL('http://api.internal/v2'));
    expect(() => loadSettings({ HEADERS_TIMEOUT_MS: '40000' })).toThrow(timeouts);
    expect(() => loadSettings({ PORT: '9464' })).toThrow(metricsPort);
    expect(() => loadSettings({ CORS_ALLOW_CREDENTIALS: 'true' })).toThrow(credentials);
    expect(() => loadSettings({ CORS_ALLOW_CREDENTIALS: 'true', CORS_ORIGINS: '*' })).toThrow(credentials);
    expect(loadSettings({ CORS_ALLOW_CREDENTIALS: 'true', CORS_ORIGINS: 'https://app.example' }).corsAllowCredentials).toBe(true);
    const sample = (name: string) => SAMPLES[name]![0];
    const url = { REDIS_URL: sample('REDIS_URL') };
    const sentinels = { REDIS_SENTINELS: sample('REDIS_SENTINELS'), REDIS_SENTINEL_MASTER: sample('REDIS_SENTINEL_MASTER') };
    const nodes = { REDIS_CLUSTER_NODES: sample('REDIS_CLUSTER_NODES') };
    for (const env of [
      { ...url, ...nodes },
      { ...url, ...sentinels },
      { ...sentinels, ...nodes },
      { ...url, ...sentinels, ...nodes },
    ]) {
      expect(() => loadSettings(env), Object.keys(env).join()).toThrow(twoRedis);
    }
    expect(() => loadSettings({ REDIS_SENTINELS: sentinels.REDIS_SENTINELS })).toThrow(sentinelsAlone);
    expect(() => loadSettings({ REDIS_SENTINEL_MASTER: sentinels.REDIS_SENTINEL_MASTER })).toThrow(sentinelsAlone);
    expect(() => loadSettings({ REDIS_PASSWORD: 'secret' })).toThrow(passwordAlone);
    expect(() => loadSettings({ ...url, REDIS_PASSWORD: 'secret' })).toThrow(passwordAlone);
    expect(loadSettings({ ...nodes, REDIS_PASSWORD: 'secret' }).redisPassword).toBe('secret');
    expect(twoRedis!.message).toContain('REDIS_URL, REDIS_SENTINELS and REDIS_CLUSTER_NODES');
    expect(sentinelsAlone!.message).toMatch(/^Invalid configuration: REDIS_SENTINELS and REDIS_SENTINEL_MASTER /);
  });

  it('read host:port lists of Redis addresses, and refuse anything else', () => {
    expect(loadSettings({ REDIS_CLUSTER_NODES: ' redis-0:6379 ,, [::1]:7000,127.0.0.1:7001 ' }).redisClusterNodes).toEqual([
      { host: 'redis-0', port: 6379 },
      { host: '::1', port: 7000 },
      { host: '127.0.0.1', port: 7001 },
    ]);
    for (const bad of [
      'redis-0',
      'redis-0:',
      'redis-0:0',
      'redis-0:65536',
      ':6379',
      'user:pw@redis-0:6379',
      'redis://redis-0:6379',
      'redis-0:6379/1',
    ]) {
      expect(() => loadSettings({ REDIS_CLUSTER_NODES: bad }), bad).toThrow(
        new ConfigError(
          'Invalid configuration: REDIS_CLUSTER_NODES must be 1 to 64 host:port addresses separated by commas, such as redis-0.redis:6379,redis-1.redis:6379.',
        ),
      );
    }
    expect(() => loadSettings({ REDIS_CLUSTER_NODES: Array.from({ length: 65 }, (_, i) => `redis-${i}:6379`).join() })).toThrow(
      ConfigError,
    );
  });

  it('show every variable as set, or its default, but never a secret nor the user and password of a URL', () => {
    const secrets = Object.values(SETTINGS).filter((spec) => isSecret(spec.parse));
    expect(secrets.map((spec) => spec.env)).toEqual(['DEBUG_UPSTREAM_KEY', 'REDIS_PASSWORD']);
    const specs = Object.values(SETTINGS);
    const alternative = new Set(ALTERNATIVES.flat());
    for (const chosen of ALTERNATIVES) {
      const env = Object.fromEntries(
        specs.filter((spec) => !alternative.has(spec.env) || chosen.includes(spec.env)).map((spec) => [spec.env, sampleOf(spec)[0]]),
      );
      const hidden: Record<string, string> = {
        DEBUG_UPSTREAM_KEY: '[redacted]',
        REDIS_PASSWORD: '[redacted]',
        REDIS_URL: 'rediss://[redacted]@cache.internal:6380/2',
      };
      expect(shownSettings(loadSettings(env), env), chosen.join()).toEqual(
        specs.map((spec) =>
          env[spec.env] === undefined ? `${spec.env}=unset (default)` : `${spec.env}=${hidden[spec.env] ?? env[spec.env]}`,
        ),
      );
    }
    expect(shownSettings(loadSettings({}), {})).toEqual(
      expect.arrayContaining([
        'NODE_ENV=unset (default)',
        'PORT=4000 (default)',
        'CORS_ORIGINS=* (default)',
        'FORWARD_HEADERS=unset (default)',
      ]),
    );
  });

  it('refuse every bad value at once, one line each, and then every combination refused', () => {
    expect(() => loadSettings({ PORT: 'x', NODE_ENV: 'prod', GRAPHIQL: '' })).toThrow(
      new ConfigError(
        [
          'Invalid configuration: NODE_ENV must be one of production, development, test.',
          'Invalid configuration: PORT must be a port number from 0 to 65535.',
          'Invalid configuration: GRAPHIQL must not be empty; unset it to take the default.',
        ].join('\n'),
      ),
    );
    expect(() => loadSettings({ NODE_ENV: 'production', PORT: '9464' })).toThrow(
      new ConfigError(
        [
          `Invalid configuration: ${SETTING_RULES[0]!.message}`,
          'Invalid configuration: METRICS_PORT must differ from PORT: /metrics is kept off the public port.',
        ].join('\n'),
      ),
    );
  });

  it('never show a Redis password in a refusal', () => {
    for (const env of [
      { REDIS_URL: 'redis://:hunter2@cache:6379/x' },
      { REDIS_PASSWORD: `hunter2${'x'.repeat(1024)}`, REDIS_CLUSTER_NODES: 'redis-0:6379' },
      { REDIS_PASSWORD: 'hunter2', REDIS_URL: 'redis://:hunter2@cache:6379' },
    ]) {
      expect(() => loadSettings(env)).toThrow(ConfigError);
      expect(() => loadSettings(env)).not.toThrow(/hunter2/);
    }
  });

  it.each(ENVIRONMENT_VARIABLES)('refuse %s set to an empty value instead of treating it as unset', (name) => {
    expect(() => loadSettings({ [name]: '' })).toThrow(
      new ConfigError(`Invalid configuration: ${name} must not be empty; unset it to take the default.`),
    );
  });

  it('read a renamed variable as its new name, with a warning, and refuse it beside the new name at another value', () => {
    expect(loadSettings({ RATE_LIMIT_OPERATIONS: '40' }).rateLimit).toBe(40);
    expect(retiredVariableWarnings({ RATE_LIMIT_OPERATIONS: '40' })).toEqual([
      'RATE_LIMIT_OPERATIONS is read as RATE_LIMIT, in the unit RATE_LIMIT_UNIT says (REST calls unless it says operations): rename it.',
    ]);
    // A deployment that sets both while it renames, to one value, is not refused.
    expect(loadSettings({ RATE_LIMIT_OPERATIONS: '40', RATE_LIMIT: '40' }).rateLimit).toBe(40);
    expect(() => loadSettings({ RATE_LIMIT_OPERATIONS: '40', RATE_LIMIT: '400' })).toThrow(
      new ConfigError("Invalid configuration: RATE_LIMIT_OPERATIONS is RATE_LIMIT's old name, set to another value; set RATE_LIMIT alone."),
    );
    // The old name is parsed as the new one is, and a mistake in it is named as it was set.
    expect(() => loadSettings({ RATE_LIMIT_OPERATIONS: 'many' })).toThrow(/^Invalid configuration: RATE_LIMIT_OPERATIONS must be /);
  });

  it('read a retired variable no more, whatever its value, and warn of each one still set', () => {
    const retired = { CORS_ALLOWED_HEADERS: 'x-tenant-id, not a header name!' };
    expect(loadSettings(retired)).toEqual(loadSettings({}));
    expect(retiredVariableWarnings(retired)).toEqual([
      'CORS_ALLOWED_HEADERS is no longer read: a listed origin may send every request header its preflight asks for, so the headers it listed are allowed without it; unset it.',
    ]);
    expect(retiredVariableWarnings({})).toEqual([]);
    for (const variable of Object.keys(RETIRED_VARIABLES)) expect(ENVIRONMENT_VARIABLES).not.toContain(variable);
  });

  it('document every setting in one line and with the accepted values', () => {
    for (const spec of Object.values(SETTINGS)) {
      expect(spec.doc, spec.env).toMatch(/^[^\n]+$/);
      expect(spec.parse.description, spec.env).toBeTruthy();
    }
  });
});
