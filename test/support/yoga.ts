import { createSchema, createYoga, type Plugin, type YogaServerOptions } from 'graphql-yoga';
import { AnswerFinisher, type AnswerSettings } from '../../src/answer/finish.js';
import { defaultSettings } from '../../src/config/settings.js';
import { useAnswerFinishing } from '../../src/plugins/use-answer-finishing.js';
import { useOperationRecords } from '../../src/plugins/use-operation-records.js';

/**
 * The in-process layer, as graphql-yoga tests its own plugins: one plugin (or a few) on a tiny
 * schema, `createYoga`, and requests through `yoga.fetch`, without a socket. It tests each plugin's
 * own logic; the real-HTTP suites prove the whole gateway.
 */

/** Where every request goes: Yoga's default GraphQL endpoint on a host name that never resolves. */
export const ENDPOINT = 'http://yoga/graphql';

/**
 * The tiny schema: a greeting, a text of a chosen length (answers of a known size), a field that
 * throws a plain Error (masked), an enum (graphql-js' suggestions name its values), a nesting type
 * (depth and cost) and a mutation.
 */
const tinySchema = createSchema({
  typeDefs: /* GraphQL */ `
    type Query {
      hello(name: String): String!
      text(length: Int!): String!
      failure: String
      role(role: Role): Role
      node: Node
    }
    type Node {
      name: String!
      child: Node
    }
    type Mutation {
      rename(name: String!): String!
    }
    enum Role {
      ADMIN
      VIEWER
    }
  `,
  resolvers: {
    Query: {
      hello: (_: unknown, { name }: { name?: string | null }) => `Hello ${name ?? 'world'}`,
      text: (_: unknown, { length }: { length: number }) => 'x'.repeat(length),
      failure: () => {
        throw new Error('an internal detail');
      },
      role: (_: unknown, { role }: { role?: string | null }) => role ?? null,
      node: () => ({ name: 'root', child: { name: 'leaf', child: null } }),
    },
    Mutation: {
      rename: (_: unknown, { name }: { name: string }) => name,
    },
  },
});

type Options = Omit<YogaServerOptions<Record<string, any>, Record<string, any>>, 'plugins'>;

/**
 * A Yoga server on the tiny schema (or `options.schema`) with only `plugins`, logging nothing, after
 * useOperationRecords as in the gateway: it opens the operation records the plugins read and write.
 */
export function yogaWith(plugins: Array<Plugin<any>>, options: Options = {}) {
  return createYoga<Record<string, any>, Record<string, any>>({
    schema: tinySchema,
    logging: false,
    ...options,
    plugins: [useOperationRecords(), ...plugins],
  });
}

/**
 * The finishing of every answer, as the gateway puts it last in its list (useAnswerFinishing), with
 * the default settings (CORS off) but `settings`: for plugins whose headers it writes (the returned
 * and notice headers), and its own tests.
 */
export function finishing(settings: Partial<AnswerSettings> = {}): Plugin {
  const { returnHeaders, compressionMinBytes, corsAllowCredentials } = defaultSettings();
  return useAnswerFinishing(new AnswerFinisher({ returnHeaders, compressionMinBytes, corsOrigins: [], corsAllowCredentials, ...settings }));
}

/** What a client can assert: the status, every header (names in lower case) and the body. */
interface FetchedAnswer {
  status: number;
  headers: Record<string, string>;
  /** Parsed when the answer is JSON, the text otherwise, null when empty. */
  body: any;
}

interface Fetches {
  fetch(url: string, init?: RequestInit): Response | Promise<Response>;
}

/** Any request, with the body as the bytes sent (a gzipped body stays gzipped). */
export async function sendForBytes(
  yoga: Fetches,
  url: string,
  init: RequestInit = {},
): Promise<Omit<FetchedAnswer, 'body'> & { bytes: Buffer }> {
  const response = await yoga.fetch(url, init);
  const bytes = Buffer.from(await response.arrayBuffer());
  const headers = Object.fromEntries([...response.headers].map(([name, value]) => [name.toLowerCase(), value]));
  return { status: response.status, headers, bytes };
}

/** Any request, read whole into a FetchedAnswer. */
export async function send(yoga: Fetches, url: string, init: RequestInit = {}): Promise<FetchedAnswer> {
  const { status, headers, bytes } = await sendForBytes(yoga, url, init);
  const text = bytes.toString('utf8');
  const json = headers['content-type']?.includes('json') && text !== '';
  return { status, headers, body: json ? JSON.parse(text) : text === '' ? null : text };
}

/**
 * A GraphQL POST of `body` (one request, or an array for a batch) as a JSON client sends it, asking
 * for `application/graphql-response+json` so that request errors are answered 400 (GraphQL over HTTP).
 */
export function post(yoga: Fetches, body: unknown, headers: Record<string, string> = {}): Promise<FetchedAnswer> {
  return send(yoga, ENDPOINT, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
    body: JSON.stringify(body),
  });
}

/**
 * A GraphQL POST of `body` as a client that takes @defer and @stream sends it, asking for
 * `multipart/mixed` (with `headers` besides); the Response, for its parts to be read as they come.
 */
export async function postForParts(
  yoga: Fetches,
  body: unknown,
  { headers = {}, signal }: { headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Response> {
  return yoga.fetch(ENDPOINT, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'multipart/mixed', ...headers },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

/**
 * A plugin that answers every request itself, before any GraphQL work, as a static file or a page
 * served by another plugin would: for the plugins that amend whatever answer goes out.
 */
export function answering(body: string, headers: Record<string, string>): Plugin {
  return {
    onRequest: ({ endResponse, fetchAPI }) => endResponse(new fetchAPI.Response(body, { headers })),
  };
}

/** The status and body of a GraphQL POST, compared at once by the tests whose headers say nothing. */
export async function answerTo(
  yoga: Fetches,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Omit<FetchedAnswer, 'headers'>> {
  const { status, body: json } = await post(yoga, body, headers);
  return { status, body: json };
}

/** What answerTo gives for an operation refused by one of its limits: 400, LIMIT_EXCEEDED naming the limit and its maximum. */
export const refused = (limit: string, max: number, message: string) => ({
  status: 400,
  body: { errors: [{ message, extensions: { code: 'LIMIT_EXCEEDED', limit, max } }] },
});

/** A request id the gateway made itself (crypto.randomUUID). */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
