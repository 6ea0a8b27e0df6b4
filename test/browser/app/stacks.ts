/**
 * The frontend app of test/browser/frontend-stacks.test.ts, bundled for the page by esbuild from
 * the registry packages: each stack set up as its own documentation shows, plus the Authorization
 * header. Every function returns what the page could read, or the error it got.
 */
import { ApolloClient, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { Client, cacheExchange, fetchExchange } from '@urql/core';

const KEYS = 'query Keys { apiKeys(first: 2) { nodes { id name } } }';

export async function apollo(url: string, token: string) {
  const client = new ApolloClient({
    link: new HttpLink({ uri: url, headers: { authorization: token } }),
    cache: new InMemoryCache(),
    clientAwareness: { name: 'web-app', version: '1.4.2' },
  });
  try {
    const { data } = await client.query({ query: gql(KEYS) });
    return { data };
  } catch (error) {
    return { failed: String(error) };
  }
}

export async function urql(url: string, token: string) {
  const client = new Client({ url, exchanges: [cacheExchange, fetchExchange], fetchOptions: { headers: { authorization: token } } });
  const { data, error } = await client.query(KEYS, {}).toPromise();
  return error ? { failed: String(error) } : { data };
}

/** fetch with the headers a library adds on its own: OpenTelemetry's fetch instrumentation, Sentry's tracing. */
export function tracedFetch(url: string, token: string, credentials: RequestCredentials = 'same-origin') {
  return fetchWith(url, token, credentials, {
    traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    tracestate: 'vendor=browser',
    'sentry-trace': '4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1',
    baggage: 'sentry-environment=production,sentry-release=web%401.4.2',
  });
}

/** A POST of the query with the token and `headers`, as a monitoring agent's patched fetch sends it. */
export async function fetchWith(url: string, token: string, credentials: RequestCredentials, headers: Record<string, string>) {
  try {
    const response = await fetch(url, {
      method: 'POST',
      credentials,
      headers: { 'content-type': 'application/json', authorization: token, ...headers },
      body: JSON.stringify({ query: KEYS }),
    });
    return { status: response.status, body: await response.json(), requestId: response.headers.get('x-request-id') };
  } catch (error) {
    return { failed: String(error) };
  }
}

/** A raw POST whose answer the page reads: status, error code and the headers a page may see. */
export async function rawPost(url: string, token: string, body: string) {
  try {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: token }, body });
    const json = (await response.json()) as { errors?: Array<{ extensions?: { code?: string } }> };
    return { status: response.status, code: json.errors?.[0]?.extensions?.code, requestId: response.headers.get('x-request-id') };
  } catch (error) {
    return { failed: String(error) };
  }
}
