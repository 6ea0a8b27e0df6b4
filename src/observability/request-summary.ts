import type { ClientIdentity } from './client-identity.js';

type Outcome = 'ok' | 'partial' | 'error';

/** What logs and metrics learn about one finished GraphQL request: never variables or tokens. */
export interface RequestSummary {
  requestId: string;
  /** The operation's place in a batched request (a JSON array); absent for a single operation. */
  batch?: { index: number; size: number };
  /** The calling app, from its client-awareness headers. */
  client: ClientIdentity;
  /** The operation's own name, or undefined for an anonymous or unparsable one. */
  operationName: string | undefined;
  operationType: 'query' | 'mutation' | 'subscription' | undefined;
  /** HTTP status of the response. */
  status: number;
  durationMs: number;
  upstreamCalls: number;
  /** The operation passed validation and ran. */
  executed: boolean;
  /** The upstream answered one of its calls with anything but 401 or 403: the caller's token is real. */
  upstreamAccepted: boolean;
  /** `ok`: no errors; `partial`: errors and some non-null top-level field; `error`: the rest. */
  outcome: Outcome;
  /** Distinct `extensions.code` values of the response's errors, in order of appearance. */
  errorCodes: string[];
}
