import { createRequire } from 'node:module';
import { format } from 'node:util';
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

/** How long `logsWritten` waits at most. */
const LOGS_WRITTEN_WAIT_MS = 1_000;

/**
 * Resolves once the lines logged so far have been written, or writing them failed: what a process
 * must wait for before `process.exit`. pino writes asynchronously and, on exit, writes what is left
 * with a synchronous loop that retries a failed write forever when its error is not EAGAIN
 * (sonic-boom 4): a gateway whose stdout reader had gone (`npm start | head`) stopped listening on
 * SIGTERM and never exited. Ending the stream first lets the write in flight fail as an `error` event,
 * on which pino stops writing to that pipe, or finish and close the stream, which pino then leaves be.
 */
export function logsWritten(logger: Logger): Promise<void> {
  const stream = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] as Partial<NodeJS.WritableStream> | undefined;
  if (typeof stream?.end !== 'function' || typeof stream.once !== 'function') return Promise.resolve();
  return new Promise((resolve) => {
    for (const event of ['close', 'finish', 'error']) stream.once!(event, () => resolve());
    // After a broken pipe pino has made `end` a no-op that says nothing: not waited for past this.
    setTimeout(resolve, LOGS_WRITTEN_WAIT_MS).unref();
    stream.end!();
  });
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

/** The console methods dependencies print with, and the level each becomes. */
const CONSOLE_LEVELS = { log: 'info', info: 'info', debug: 'debug', trace: 'debug', warn: 'warn', error: 'error' } as const;

/** The longest text of one console call that is logged; a dependency's printout is bounded like anything else. */
const CONSOLE_MAX_CHARS = 2_000;

/**
 * Sends what dependencies print with `console` through `logger`, as JSON lines at the matching level
 * with the text as `msg`: in production only JSON lines may reach stdout and stderr, where a
 * library's raw text (graphql-jit's warnings) broke every log collector's parsing. An Error is
 * written as its class and message, never its stack. Returns what puts the console back.
 */
export function routeConsole(logger: Logger): () => void {
  const original = { ...console };
  for (const [method, level] of Object.entries(CONSOLE_LEVELS)) {
    console[method as keyof typeof CONSOLE_LEVELS] = (...args: unknown[]) => {
      const text = format(...args.map((arg) => (arg instanceof Error ? `${arg.name}: ${arg.message}` : arg)));
      logger[level]({ console: method }, text.length > CONSOLE_MAX_CHARS ? `${text.slice(0, CONSOLE_MAX_CHARS)}…` : text);
    };
  }
  return () => Object.assign(console, original);
}
