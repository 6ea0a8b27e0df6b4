import type { Settings } from '../config/settings.js';

/** Set by a cluster primary for its workers: the address of the one sandbox it serves to all of them. */
export const SANDBOX_URL_FROM_PRIMARY = 'GATEWAY_PRIMARY_SANDBOX_URL';

/** Where a gateway sends its calls. */
export interface UpstreamSource {
  /** The base address, ending in /v2. */
  url: URL;
  /** The embedded sandbox's token, when the upstream is the sandbox (it takes any). */
  sandboxToken: string | undefined;
  /** Stops the sandbox this process started, if it started one. */
  close(): Promise<void>;
}

/**
 * The one place that decides where the upstream is: UPSTREAM_URL when set; else the sandbox a
 * cluster primary started for its workers; else an embedded sandbox started here. SETTING_RULES
 * has already refused an unset UPSTREAM_URL where SANDBOX is false.
 */
export async function openUpstream({ upstreamUrl }: Pick<Settings, 'upstreamUrl'>, env = process.env): Promise<UpstreamSource> {
  if (upstreamUrl) return { url: upstreamUrl, sandboxToken: undefined, close: async () => {} };
  // Loaded only when it is the upstream: a gateway in front of a real one never holds the fake's routes and data.
  const { SANDBOX_TOKEN, startSandbox } = await import('../sandbox/server.js');
  const fromPrimary = env[SANDBOX_URL_FROM_PRIMARY];
  if (fromPrimary) return { url: new URL(fromPrimary), sandboxToken: SANDBOX_TOKEN, close: async () => {} };
  const sandbox = await startSandbox();
  return { url: new URL(sandbox.url), sandboxToken: sandbox.token, close: () => sandbox.close() };
}
