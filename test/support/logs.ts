import { expect } from 'vitest';
import { createLogger, type Logger } from '../../src/observability/logger.js';

export interface CapturedLogs {
  logger: Logger;
  /** Every line exactly as written. */
  raw: string[];
  /** The lines parsed, optionally only those with this `msg`. */
  lines(msg?: string): Array<Record<string, unknown>>;
}

/** The gateway's own logger (redaction included), writing into memory instead of stdout. */
export function captureLogs(level: 'debug' | 'info' | 'warn' = 'debug'): CapturedLogs {
  const raw: string[] = [];
  const logger = createLogger({ level, destination: { write: (line: string) => void raw.push(line) } });
  return {
    logger,
    raw,
    lines: (msg) => raw.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => msg === undefined || line.msg === msg),
  };
}

/** Fields every pino line carries, whose values the test cannot know. */
export const lineBase = (level: number) => ({ level, time: expect.any(String), pid: process.pid, hostname: expect.any(String) });
