import { z } from 'zod';
import { type Limits, limitsEnvironment, limitsFrom } from './limits.js';
import { ANY_ORIGIN, corsOriginList } from './cors.js';
import { flag, wholeNumber } from './env.js';
import { DEFAULT_MAX_BODY_BYTES } from './http.js';
import { DEFAULT_COMPRESSION_MIN_BYTES } from './plugins/use-compression.js';

const httpUrlEndingInV2 = z
  .string()
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && /\/v2\/?$/.test(url.pathname) && !url.search && !url.hash;
    } catch {
      return false;
    }
  }, 'must be an http(s) URL whose path ends in /v2, without query or fragment')
  .transform((value) => new URL(value.replace(/\/+$/, '')));

/**
 * Environment variables the gateway reads, each with its default. The README's configuration
 * table lists the same.
 */
const environment = z.object({
  /** Port of the GraphQL endpoint. @default 4000 */
  PORT: wholeNumber(0, 65535, 'must be a port number from 0 to 65535').default(4000),
  /** Interface to listen on. @default 0.0.0.0 */
  HOST: z.string().min(1, 'must not be empty').default('0.0.0.0'),
  /** Upstream base address ending in /v2. @default unset: the embedded sandbox is started */
  UPSTREAM_URL: httpUrlEndingInV2.optional(),
  /** Bound of each upstream request in ms. @default 10000 */
  UPSTREAM_TIMEOUT_MS: wholeNumber(1, 600_000, 'must be a whole number of milliseconds from 1 to 600000').default(10_000),
  /** Serve GraphiQL on GET /graphql. @default true, false when NODE_ENV=production */
  GRAPHIQL: flag.optional(),
  NODE_ENV: z.string().optional(),
  /** Persisted-documents manifest (hash -> document); when set only those operations run. @default unset: any operation */
  TRUSTED_DOCUMENTS: z.string().min(1, 'must be a file path').optional(),
  /** Resilience and operation limits: see src/limits.ts and the README section "Security and limits". */
  ...limitsEnvironment,
  /** Origins allowed to call from a browser, comma-separated, or *. @default none in production, * otherwise */
  CORS_ORIGINS: corsOriginList.optional(),
  /** Largest request body in bytes. @default 1048576 */
  MAX_BODY_BYTES: wholeNumber(1, 100 * 1024 * 1024, 'must be a whole number of bytes from 1 to 104857600').default(DEFAULT_MAX_BODY_BYTES),
  /** Smallest answer in bytes that is compressed. @default 1024 */
  COMPRESSION_MIN_BYTES: wholeNumber(0, 2 ** 31 - 1, 'must be a whole number of bytes').default(DEFAULT_COMPRESSION_MIN_BYTES),
  /** Lowest pino level written. @default info */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'must be one of fatal, error, warn, info, debug, trace, silent').default('info'),
  /** How long in-flight requests may take to finish after SIGTERM/SIGINT. @default 10000 */
  SHUTDOWN_TIMEOUT_MS: wholeNumber(0, 600_000, 'must be a whole number of milliseconds from 0 to 600000').default(10_000),
  /** Worker processes sharing the port (node:cluster). @default 1 */
  WORKERS: wholeNumber(1, 64).default(1),
  /** OTLP/HTTP collector base address; tracing is off while unset. @default unset */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  /** service.name on every span. @default vms-graphql-gateway */
  OTEL_SERVICE_NAME: z.string().min(1, 'must not be empty').default('vms-graphql-gateway'),
});

/** The names of every environment variable the gateway reads. */
export const ENVIRONMENT_VARIABLES = Object.keys(environment.shape);

export interface Config {
  port: number;
  host: string;
  /** Undefined when the embedded sandbox is to be used. */
  upstreamUrl: URL | undefined;
  upstreamTimeoutMs: number;
  graphiql: boolean;
  production: boolean;
  /** Path of the trusted-documents manifest; undefined accepts any operation. */
  trustedDocuments: string | undefined;
  limits: Limits;
  /** Origins allowed to call from a browser; ['*'] for any, [] for none. */
  corsOrigins: string[];
  maxBodyBytes: number;
  compressionMinBytes: number;
  logLevel: LogLevel;
  shutdownTimeoutMs: number;
  workers: number;
  /** Set only when traces are to be exported. */
  otlpEndpoint: string | undefined;
  serviceName: string;
}

export type LogLevel = z.infer<typeof environment>['LOG_LEVEL'];

export class ConfigError extends Error {}

/** Reads and checks the configuration; a bad value throws a ConfigError naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const defined = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = environment.safeParse(defined);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`Invalid configuration: ${String(issue.path[0])} ${issue.message}.`);
  }
  const values = parsed.data;
  const production = values.NODE_ENV === 'production';
  return {
    port: values.PORT,
    host: values.HOST,
    upstreamUrl: values.UPSTREAM_URL,
    upstreamTimeoutMs: values.UPSTREAM_TIMEOUT_MS,
    graphiql: values.GRAPHIQL ?? !production,
    production,
    trustedDocuments: values.TRUSTED_DOCUMENTS,
    limits: limitsFrom(values, production),
    corsOrigins: values.CORS_ORIGINS ?? (production ? [] : [ANY_ORIGIN]),
    maxBodyBytes: values.MAX_BODY_BYTES,
    compressionMinBytes: values.COMPRESSION_MIN_BYTES,
    logLevel: values.LOG_LEVEL,
    shutdownTimeoutMs: values.SHUTDOWN_TIMEOUT_MS,
    workers: values.WORKERS,
    otlpEndpoint: values.OTEL_EXPORTER_OTLP_ENDPOINT,
    serviceName: values.OTEL_SERVICE_NAME,
  };
}
