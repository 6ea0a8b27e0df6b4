import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { describe } from 'vitest';

/**
 * The Chromium the browser tests drive: CHROMIUM_PATH, else Debian's (`apt-get install chromium`,
 * which .ci/run does). Never a browser a test tool downloads.
 */
const path = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The flags headless Chromium needs on these machines (closed network, no GPU, root). */
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * A describe block of browser tests. Without a browser it is skipped with a message naming
 * CHROMIUM_PATH, except under CI=true, where a missing browser fails the run.
 */
export function describeInBrowser(name: string, tests: () => void): void {
  const found = existsSync(path);
  if (!found) {
    const message = `No Chromium at ${path}: install it (apt-get install -y chromium) or set CHROMIUM_PATH to its executable.`;
    if (process.env.CI === 'true') throw new Error(`${message} CI=true, so the browser tests may not be skipped.`);
    console.warn(`${message} The browser tests in "${name}" are skipped.`);
  }
  describe.skipIf(!found)(name, tests);
}

/** Headless Chromium in a fresh profile, removed again on close. */
export async function launchBrowser(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = await mkdtemp(join(tmpdir(), 'gateway-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: path, args: ARGS, headless: true });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
