/**
 * RFC 6750 credentials as RFC 9110 (§11.1, §11.4) reads them: the scheme in any case, one or more
 * spaces, a token68. Anything else, another scheme included, is not a Bearer credential.
 */
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/**
 * The Authorization header of a Bearer credential as one spelling, `Bearer <token>`, or undefined
 * for any other header: `bearer x`, `BEARER x` and `Bearer   x` are one caller, as the upstream
 * reads them, for the rate limit, the circuit breaker and the caches alike.
 */
export function bearerCredential(authorization: string | null): string | undefined {
  const token = authorization === null ? undefined : BEARER.exec(authorization)?.[1];
  return token === undefined ? undefined : `Bearer ${token}`;
}
