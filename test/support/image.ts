import { execFile, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe } from 'vitest';

/**
 * The container image under test: GATEWAY_IMAGE, the tag scripts/build-image.sh (`npm run image`)
 * prints and .ci/run sets; `none` where .ci/run could not install podman.
 */
const image = process.env.GATEWAY_IMAGE;

/** podman's environment: scripts/containers.conf, the settings these machines need, unless CONTAINERS_CONF names another. */
const env = {
  ...process.env,
  CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? fileURLToPath(new URL('../../scripts/containers.conf', import.meta.url)),
};

/** The arguments of a podman command, with podman's settings as scripts/build-image.sh uses them. */
export const podmanCommand = (args: string[]) => ({ command: 'podman', args, env });

/** The tag of the image under test, in a block of describeWithImage. */
export function imageUnderTest(): string {
  if (image === undefined || image === 'none') throw new Error('imageUnderTest() is for tests inside describeWithImage');
  return image;
}

/**
 * A describe block of tests of the image (imageUnderTest()). Without GATEWAY_IMAGE it is skipped with
 * a message saying how to build one, except under CI=true, where that fails the run; with
 * GATEWAY_IMAGE=none (.ci/run could not install podman, and said why) it is skipped. An image named
 * but missing fails.
 */
export function describeWithImage(name: string, tests: () => void): void {
  if (image === undefined || image === 'none') {
    const message =
      image === undefined
        ? 'GATEWAY_IMAGE is not set: build the image with `npm run image` (podman, docs/operations.md) and set GATEWAY_IMAGE to the tag it prints.'
        : 'GATEWAY_IMAGE=none: .ci/run could not install podman here.';
    if (image === undefined && process.env.CI === 'true') throw new Error(`${message} CI=true, so the image tests may not be skipped.`);
    console.warn(`${message} The image tests in "${name}" are skipped.`);
    describe.skip(name, tests);
    return;
  }
  const exists = spawnSync('podman', ['image', 'exists', image], { env, encoding: 'utf8' });
  if (exists.status !== 0)
    throw new Error(`GATEWAY_IMAGE=${image}: ${exists.error?.message ?? 'podman has no such image'}; \`npm run image\` builds one.`);
  describe(name, tests);
}

/** Runs podman to its end: its exit code and output. */
export function podman(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile('podman', args, { env, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') reject(error);
      else resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
    });
  });
}
