import { z } from 'zod';

const integer = (min: number, max: number, what: string) =>
  z
    .string()
    .regex(/^\d+$/, what)
    .transform(Number)
    .refine((n) => n >= min && n <= max, what);

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
  PORT: integer(0, 65535, 'must be a port number from 0 to 65535').default(4000),
  /** Interface to listen on. @default 0.0.0.0 */
  HOST: z.string().min(1, 'must not be empty').default('0.0.0.0'),
  /** Upstream base address ending in /v2. @default unset: the embedded sandbox is started */
  UPSTREAM_URL: httpUrlEndingInV2.optional(),
  /** Bound of each upstream request in ms. @default 10000 */
  UPSTREAM_TIMEOUT_MS: integer(1, 600_000, 'must be a whole number of milliseconds from 1 to 600000').default(10_000),
  /** Serve GraphiQL on GET /graphql. @default true, false when NODE_ENV=production */
  GRAPHIQL: z.enum(['true', 'false'], 'must be true or false').transform((v) => v === 'true').optional(),
  NODE_ENV: z.string().optional(),
});

export interface Config {
  port: number;
  host: string;
  /** Undefined when the embedded sandbox is to be used. */
  upstreamUrl: URL | undefined;
  upstreamTimeoutMs: number;
  graphiql: boolean;
  production: boolean;
}

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
  };
}
