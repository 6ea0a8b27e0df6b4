// The command the image starts the gateway with: the Dockerfile's CMD, read from the Dockerfile
// itself, so that what the benchmark measures and what the docs cite are the image's own flags.

import { readFileSync } from 'node:fs';

/** What the Dockerfile's CMD runs: `node`, its flags, then the script. */
export interface ImageCommand {
  /** The flags between `node` and the script, in order (`--max-semi-space-size=64`). */
  nodeFlags: string[];
  /** The script, relative to the image's WORKDIR (`dist/main.js`). */
  script: string;
}

/**
 * The one CMD of a Dockerfile (its text; by default the Dockerfile of the folder the command runs
 * in, the repository's root under npm), in its exec form, read strictly: anything but one
 * `CMD ["node", ...flags, "<script>.js"]` line is refused, rather than guessed at.
 */
export function imageCommand(dockerfile = readFileSync('Dockerfile', 'utf8')): ImageCommand {
  const lines = dockerfile.split('\n').filter((line) => /^CMD\b/.test(line));
  if (lines.length !== 1) throw new Error(`The Dockerfile has ${lines.length} CMD lines; the benchmark reads exactly one.`);
  const words = JSON.parse(lines[0]!.slice('CMD'.length)) as unknown;
  if (!Array.isArray(words) || !words.every((word) => typeof word === 'string')) throw new Error(`Not an exec-form CMD: ${lines[0]}`);
  const [node, ...rest] = words as string[];
  const script = rest.pop();
  if (node !== 'node' || !script?.endsWith('.js') || !rest.every((flag) => flag.startsWith('--'))) {
    throw new Error(`The Dockerfile's CMD is not node, its flags, then a script: ${lines[0]}`);
  }
  return { nodeFlags: rest, script };
}
