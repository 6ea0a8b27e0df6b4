import { createRequire } from 'node:module';
import { type DestinationStream, type Logger, type LoggerOptions, pino } from 'pino';

export type { Logger } from 'pino';

/**
 * Fields pino blanks out wherever they appear, top level or one object down (`*.x`), plus the
 * header objects of requests and responses. Censoring by path rather than by hand means a new log
 * call cannot leak a credential by forgetting to strip it.
 */
const REDACT_PATHS: readonly string[] = [
  'authorization',
  'cookie',
  'token',
  'password',
  'secret',
  '*.authorization',
  '*.Authorization',
  '*.cookie',
  '*["set-cookie"]',
  '*.token',
  '*.accessToken',
  '*.password',
  '*.secret',
  '*.headers.authorization',
  '*.headers.Authorization',
  '*.headers.cookie',
  '*.headers["set-cookie"]',
  '*.headers["x-api-key"]',
];

export interface LoggerSettings {
  level: LoggerOptions['level'];
  /** Readable lines instead of JSON. @default true when stdout is a terminal outside production */
  pretty?: boolean;
  production?: boolean;
  /** Where lines go. @default stdout */
  destination?: DestinationStream;
}

export function createLogger({ level, production = false, pretty, destination }: LoggerSettings): Logger {
  const options: LoggerOptions = {
    level,
    redact: { paths: [...REDACT_PATHS], censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Stack traces name files and lines of the deployment; the message and class are enough to act on.
    serializers: { err: (error: unknown) => describeError(error) },
  };
  const readable = pretty ?? (process.stdout.isTTY === true && !production);
  if (readable && !destination && prettyInstalled()) {
    return pino({
      ...options,
      transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true } },
    });
  }
  return destination ? pino(options, destination) : pino(options);
}

function describeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: String(error) };
  const code = (error as { code?: unknown }).code;
  return code === undefined ? { type: error.name, message: error.message } : { type: error.name, message: error.message, code };
}

/** pino-pretty is a development dependency: production images do not have it. */
function prettyInstalled(): boolean {
  try {
    createRequire(import.meta.url).resolve('pino-pretty');
    return true;
  } catch {
    return false;
  }
}
