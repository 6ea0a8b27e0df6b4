import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_VARIABLES, loadSettings } from '../../src/config/load.js';
import { ConfigError, defaultSettings, SETTING_RULES, SETTINGS } from '../../src/config/settings.js';

/** The settings table as the environment reaches it: defaults, production defaults, every variable, bad values. */
describe('settings', () => {
  it('default to the table, with introspection, suggestions, GraphiQL and any origin on outside production', () => {
    expect(loadSettings({})).toEqual(defaultSettings());
    expect(defaultSettings()).toEqual({
      production: false,
      port: 4000,
      metricsPort: 9464,
      host: '0.0.0.0',
      workers: 1,
      shutdownTimeoutMs: 10_000,
      maxBodyBytes: 1_048_576,
      keepAliveTimeoutMs: 65_000,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      maxConnections: 4_096,
      compressionMinBytes: 1024,
      upstreamUrl: undefined,
      sandbox: true,
      upstreamAllowHttp: false,
      upstreamTimeoutMs: 10_000,
      requestDeadlineMs: 15_000,
      upstreamMaxBytes: 10_485_760,
      maxUpstreamCalls: 10,
      upstreamRetries: 2,
      upstreamRetryMaxDelayMs: 2_000,
      breakerErrorPercent: 50,
      breakerMinCalls: 5,
      breakerMinCallers: 3,
      breakerWindowMs: 10_000,
      breakerResetMs: 10_000,
      maxDepth: 8,
      maxAliases: 15,
      maxTokens: 1_000,
      maxDirectives: 10,
      maxCost: 20_000,
      introspection: true,
      fieldSuggestions: true,
      graphiql: true,
      federation: false,
      maxBatchSize: 10,
      apqStoreBytes: 8_388_608,
      trustedDocuments: undefined,
      corsOrigins: ['*'],
      corsAllowedHeaders: [],
      corsAllowCredentials: false,
      logLevel: 'info',
      otlpEndpoint: undefined,
      traceCallerContext: true,
      metricsClientNames: undefined,
      serviceName: 'vms-graphql-gateway',
    });
  });

  it('switch introspection, suggestions, GraphiQL and the any-origin default off under NODE_ENV=production unless set', () => {
    const upstream = { UPSTREAM_URL: 'https://api.example.com/v2' };
    expect(loadSettings({ NODE_ENV: 'production', ...upstream })).toMatchObject({
      production: true,
      introspection: false,
      fieldSuggestions: false,
      graphiql: false,
      corsOrigins: [],
      sandbox: false,
    });
    expect(loadSettings({ NODE_ENV: 'production', INTROSPECTION: 'true', ...upstream })).toMatchObject({
      introspection: true,
      fieldSuggestions: false,
    });
  });

  it('read every variable', () => {
    const env = {
      NODE_ENV: 'production',
      PORT: '8080',
      METRICS_PORT: '9100',
      HOST: '127.0.0.1',
      WORKERS: '2',
      SHUTDOWN_TIMEOUT_MS: '5',
      MAX_BODY_BYTES: '10',
      KEEP_ALIVE_TIMEOUT_MS: '7000',
      HEADERS_TIMEOUT_MS: '2000',
      REQUEST_TIMEOUT_MS: '3000',
      MAX_CONNECTIONS: '50',
      COMPRESSION_MIN_BYTES: '0',
      UPSTREAM_URL: 'https://api.example.com/v2/',
      SANDBOX: 'false',
      UPSTREAM_ALLOW_HTTP: 'true',
      UPSTREAM_TIMEOUT_MS: '100',
      REQUEST_DEADLINE_MS: '1000',
      UPSTREAM_MAX_BYTES: '2048',
      MAX_UPSTREAM_CALLS: '3',
      UPSTREAM_RETRIES: '0',
      UPSTREAM_RETRY_MAX_DELAY_MS: '5',
      BREAKER_ERROR_PERCENT: '20',
      BREAKER_MIN_CALLS: '7',
      BREAKER_MIN_CALLERS: '2',
      BREAKER_WINDOW_MS: '3000',
      BREAKER_RESET_MS: '500',
      MAX_DEPTH: '4',
      MAX_ALIASES: '2',
      MAX_TOKENS: '300',
      MAX_DIRECTIVES: '1',
      MAX_COST: '99',
      INTROSPECTION: 'false',
      FIELD_SUGGESTIONS: 'true',
      GRAPHIQL: 'true',
      FEDERATION: 'true',
      MAX_BATCH_SIZE: '4',
      APQ_STORE_BYTES: '0',
      TRUSTED_DOCUMENTS: 'manifest.json',
      CORS_ORIGINS: 'https://a.example, https://b.example',
      CORS_ALLOWED_HEADERS: 'x-tenant-id, x-app-build',
      CORS_ALLOW_CREDENTIALS: 'true',
      LOG_LEVEL: 'debug',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      TRACE_CALLER_CONTEXT: 'false',
      METRICS_CLIENT_NAMES: 'web-app, admin@2',
      OTEL_SERVICE_NAME: 'gw',
    };
    expect(Object.keys(env)).toEqual(ENVIRONMENT_VARIABLES);
    expect(loadSettings(env)).toEqual({
      production: true,
      port: 8080,
      metricsPort: 9100,
      host: '127.0.0.1',
      workers: 2,
      shutdownTimeoutMs: 5,
      maxBodyBytes: 10,
      keepAliveTimeoutMs: 7000,
      headersTimeoutMs: 2000,
      requestTimeoutMs: 3000,
      maxConnections: 50,
      compressionMinBytes: 0,
      upstreamUrl: new URL('https://api.example.com/v2'),
      sandbox: false,
      upstreamAllowHttp: true,
      upstreamTimeoutMs: 100,
      requestDeadlineMs: 1000,
      upstreamMaxBytes: 2048,
      maxUpstreamCalls: 3,
      upstreamRetries: 0,
      upstreamRetryMaxDelayMs: 5,
      breakerErrorPercent: 20,
      breakerMinCalls: 7,
      breakerMinCallers: 2,
      breakerWindowMs: 3000,
      breakerResetMs: 500,
      maxDepth: 4,
      maxAliases: 2,
      maxTokens: 300,
      maxDirectives: 1,
      maxCost: 99,
      introspection: false,
      fieldSuggestions: true,
      graphiql: true,
      federation: true,
      maxBatchSize: 4,
      apqStoreBytes: 0,
      trustedDocuments: ['manifest.json'],
      corsOrigins: ['https://a.example', 'https://b.example'],
      corsAllowedHeaders: ['x-tenant-id', 'x-app-build'],
      corsAllowCredentials: true,
      logLevel: 'debug',
      otlpEndpoint: 'http://collector:4318',
      traceCallerContext: false,
      metricsClientNames: ['web-app', 'admin@2'],
      serviceName: 'gw',
    });
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
    const [noUpstream, cleartext, credentials, timeouts, metricsPort] = SETTING_RULES.map(
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
  });

  it.each(ENVIRONMENT_VARIABLES)('refuse %s set to an empty value instead of treating it as unset', (name) => {
    expect(() => loadSettings({ [name]: '' })).toThrow(
      new ConfigError(`Invalid configuration: ${name} must not be empty; unset it to take the default.`),
    );
  });

  it('document every setting in one line and with the accepted values', () => {
    for (const spec of Object.values(SETTINGS)) {
      expect(spec.doc, spec.env).toMatch(/^[^\n]+$/);
      expect(spec.parse.description, spec.env).toBeTruthy();
    }
  });
});
