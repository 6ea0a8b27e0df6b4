import { existsSync, readFileSync } from 'node:fs';

/** What a running gateway says it is: in `gateway_build_info`, the start-up line, `--version` and its upstream calls' `User-Agent`. */
export interface BuildInfo {
  /** package.json's version. */
  version: string;
  /** GATEWAY_REVISION: the source revision the image was built from, or `unknown`. */
  revision: string;
  /** The Node.js version it runs on, e.g. v24.21.0. */
  node: string;
}

/**
 * package.json's version, the one statement of it, read at run time: the gateway's own package.json
 * is the first one above the code that names it, next to src/ in a checkout, next to dist/ in the
 * image, and further up for the benchmark's build (node_modules/.cache/vms-bench/).
 */
export const VERSION: string = ownPackage().version;

/** The `User-Agent` of the gateway's upstream calls unless UPSTREAM_USER_AGENT says otherwise: its name and version. */
export const USER_AGENT = `${ownPackage().name}/${VERSION}`;

function ownPackage(): { name: string; version: string } {
  for (let folder = new URL('.', import.meta.url); ; folder = new URL('..', folder)) {
    const file = new URL('package.json', folder);
    if (existsSync(file)) {
      const found = JSON.parse(readFileSync(file, 'utf8')) as { name: string; version: string };
      if (found.name === 'vms-graphql-gateway') return found;
    }
    if (folder.pathname === '/') throw new Error('the gateway’s package.json is not above its code');
  }
}

export function buildInfo(revision: string): BuildInfo {
  return { version: VERSION, revision, node: process.version };
}
