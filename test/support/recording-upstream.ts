import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the fake upstream received it. */
interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
  /** Parsed JSON body, or undefined when there was none. */
  body: unknown;
}

interface ScriptedAnswer {
  status?: number;
  headers?: Record<string, string>;
  /** Serialised as JSON unless it is a string. */
  body?: unknown;
  /** Wait this long before answering. */
  delayMs?: number;
}

export type Script = (request: RecordedRequest, index: number) => ScriptedAnswer | ((res: ServerResponse) => void);

export interface RecordingUpstream {
  /** Base URL ending in /v2. */
  url: string;
  requests: RecordedRequest[];
  /** Replaces the script that answers the following requests. */
  answer(script: Script): void;
  /** Forgets the recorded requests and answers from the script it started with again. */
  reset(): void;
  close(): Promise<void>;
}

/** A fake upstream over real HTTP that records every request and answers from a script; on `port` when given (an upstream back up). */
export async function startRecordingUpstream(
  script: Script = () => ({ body: { success: true, result: [], errors: [], links: {} } }),
  { port = 0 }: { port?: number } = {},
): Promise<RecordingUpstream> {
  const requests: RecordedRequest[] = [];
  let current = script;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://upstream.test');
      const text = Buffer.concat(chunks).toString('utf8');
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: req.headers,
        body: text === '' ? undefined : JSON.parse(text),
      };
      requests.push(recorded);
      const answer = current(recorded, requests.length - 1);
      if (typeof answer === 'function') return answer(res);
      const send = () => {
        const body = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? '');
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
        res.end(body);
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`,
    requests,
    answer(next) {
      current = next;
    },
    reset() {
      requests.length = 0;
      current = script;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A successful upstream envelope. */
export function envelope(result: unknown, links: Record<string, unknown> = {}) {
  return { success: true, result, errors: [], links };
}
