import { SANDBOX_TOKEN } from '../../src/sandbox/server.js';

/**
 * The callers of the tests, as the Authorization header they send. One token serves unless a test
 * needs callers told apart (`bearer(...)`), or the sandbox's own owner (`SANDBOX_AUTH`).
 */

/** The tests' caller's token: written nowhere else, so that a leak of it is found by name. */
export const TOKEN = 'test-caller-secret-token';

/** The headers of a caller with this bearer token. */
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The headers of the tests' caller. */
export const AUTH = bearer(TOKEN);

/** The headers of the sandbox's seeded owner: what GraphiQL presets, and what the example client sends. */
export const SANDBOX_AUTH = bearer(SANDBOX_TOKEN);
