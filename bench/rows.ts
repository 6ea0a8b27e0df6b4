// The rows of the throughput table: what each sends, to which server process. Row ids are quoted by
// the docs, the targets and --rows, so a row keeps its id and its place.

import type { LoadJob } from './load.js';
import { type PeerServer, type Servers, UPSTREAM_LATENCY_MS } from './processes.js';
import { apiKeys100, apiKeysQuery, createFolder, streamedApiKeys100 } from './queries.js';
import type { ServerProcess } from './servers.js';

/** The credential every request carries (bench/load.ts numbers it per connection). */
export const TOKEN = 'Bearer sandbox-token';

/** What a row sends, without the load: connections and duration are the run's. */
export type RowJob = Omit<LoadJob, 'connections' | 'durationSeconds'>;

export interface Row {
  id: string;
  what: string;
  server: ServerProcess;
  job: RowJob;
}

/** A GraphQL POST of `query` (or a batch of them) to `server`, each connection its own caller. */
export function graphql(server: ServerProcess, query: string | string[], headers: Record<string, string> = {}): RowJob {
  return {
    url: `http://127.0.0.1:${server.port}/graphql`,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization: TOKEN, ...headers },
    body: JSON.stringify(Array.isArray(query) ? query.map((one) => ({ query: one })) : { query }),
    expectGraphQLData: !headers['accept-encoding'],
    callerPerConnection: true,
  };
}

/** The upstream's own page of 25 API keys, straight from `server`. */
export function rest(server: ServerProcess): RowJob {
  return {
    url: `http://127.0.0.1:${server.port}/v2/api_keys?limit=25`,
    method: 'GET',
    headers: { authorization: TOKEN },
    expectGraphQLData: false,
  };
}

/** Rows 3, 4 and 5 of a gateway: one page of keys, four upstream pages, a mutation. */
const gatewayRows = (server: ServerProcess, suffix: string, label: string): Row[] => [
  { id: `3${suffix}`, what: `${label}: apiKeys(first: 25)`, server, job: graphql(server, apiKeysQuery(25)) },
  { id: `4${suffix}`, what: `${label}: apiKeys(first: 100), all 62 keys in 3 upstream pages`, server, job: graphql(server, apiKeys100) },
  { id: `5${suffix}`, what: `${label}: createFolder`, server, job: graphql(server, createFolder) },
];

/** The peers that run: GraphQL Mesh on Hive Gateway (bench/peer.ts), Tailcall (bench/tailcall.ts). */
export interface Peers {
  mesh?: PeerServer;
  tailcall?: PeerServer;
}

/** Each peer's rows: its page of 25 keys with every field (row 3's work), and of one key (row 10a's). */
export const PEER_ROWS: Record<keyof Peers, [string, string]> = { mesh: ['P', 'P1'], tailcall: ['T', 'T1'] };

/** A peer's list query for one key: its 25-key query with the limit changed, or an error if it has none to change. */
function oneKey(query: string): string {
  if (!query.includes('limit: 25')) throw new Error(`a peer's list query has no "limit: 25" to ask for one key: ${query}`);
  return query.replace('limit: 25', 'limit: 1');
}

/** A peer's two rows, each connection its own caller (both peers forward the Authorization header). */
function peerRows(peer: PeerServer | undefined, [id, oneId]: [string, string], [what, oneWhat]: [string, string]): Row[] {
  if (!peer) return [];
  return [
    { id, what, server: peer.server, job: graphql(peer.server, peer.query) },
    { id: oneId, what: oneWhat, server: peer.server, job: graphql(peer.server, oneKey(peer.query)) },
  ];
}

/** Every row the servers allow, in the table's order: the compared, peer and Redis rows only when their server runs. */
export function allRows(servers: Servers, peers: Peers = {}): Row[] {
  const { upstream, floor, gateway, comparedGateway, slowUpstream, slowGateway, slowFloor } = servers;
  const { cachingGateway, unlimitedGateway, workersGateway, redisCachingGateway, redisLimitingGateway, compared } = servers;
  const rows: Row[] = [
    { id: '1', what: 'direct REST: GET /v2/api_keys?limit=25 (ceiling)', server: upstream, job: rest(upstream) },
    { id: '2', what: 'floor: minimal Node proxy, same page', server: floor, job: graphql(floor, apiKeysQuery(25)) },
    ...gatewayRows(gateway, '', 'gateway'),
    {
      id: '4s',
      what: 'gateway: apiKeys(first: 100), edges streamed (multipart/mixed)',
      server: gateway,
      // Parts, not one JSON body: the incremental delivery timings check a streamed answer whole.
      job: { ...graphql(gateway, streamedApiKeys100, { accept: 'multipart/mixed' }), expectGraphQLData: false },
    },
    ...(comparedGateway ? gatewayRows(comparedGateway, 'c', 'compared gateway') : []),
    { id: '6a', what: `direct REST, upstream +${UPSTREAM_LATENCY_MS} ms`, server: slowUpstream, job: rest(slowUpstream) },
    {
      id: '6b',
      what: `gateway: apiKeys(first: 25), upstream +${UPSTREAM_LATENCY_MS} ms`,
      server: slowGateway,
      job: graphql(slowGateway, apiKeysQuery(25)),
    },
    {
      id: '6c',
      what: `floor, upstream +${UPSTREAM_LATENCY_MS} ms`,
      server: slowFloor,
      job: graphql(slowFloor, apiKeysQuery(25)),
    },
    ...peerRows(peers.mesh, PEER_ROWS.mesh, [
      'peer: Hive Gateway + Mesh over OpenAPI, listApiKeys(limit: 25), same page',
      'peer: listApiKeys(limit: 1)',
    ]),
    ...peerRows(peers.tailcall, PEER_ROWS.tailcall, [
      'Tailcall 1.6.14 (Rust) over REST, apiKeys(limit: 25), same page',
      'Tailcall: apiKeys(limit: 1)',
    ]),
    {
      id: '8a',
      what: 'gateway: apiKeys(first: 25), read cache hit, in process',
      server: cachingGateway,
      job: graphql(cachingGateway, apiKeysQuery(25)),
    },
    {
      id: '9a',
      what: 'gateway: apiKeys(first: 25), rate limit off',
      server: unlimitedGateway,
      job: graphql(unlimitedGateway, apiKeysQuery(25)),
    },
    ...(redisCachingGateway && redisLimitingGateway
      ? [
          {
            id: '8b',
            what: 'gateway: apiKeys(first: 25), read cache hit, in Redis',
            server: redisCachingGateway,
            job: graphql(redisCachingGateway, apiKeysQuery(25)),
          },
          {
            id: '9b',
            what: 'gateway: apiKeys(first: 25), rate limit counted in Redis',
            server: redisLimitingGateway,
            job: graphql(redisLimitingGateway, apiKeysQuery(25)),
          },
        ]
      : []),
    {
      id: '7a',
      what: 'gateway: apiKeys(first: 100), gzip',
      server: gateway,
      job: graphql(gateway, apiKeys100, { 'accept-encoding': 'gzip' }),
    },
    {
      id: '7b',
      what: 'gateway: apiKeys(first: 25), gzip',
      server: gateway,
      job: graphql(gateway, apiKeysQuery(25), { 'accept-encoding': 'gzip' }),
    },
    // How the cost grows with the work (docs/performance.md, "Scale"): the list's size, the fields.
    { id: '10a', what: 'gateway: apiKeys(first: 1)', server: gateway, job: graphql(gateway, apiKeysQuery(1)) },
    { id: '10b', what: 'gateway: apiKeys(first: 25), id only', server: gateway, job: graphql(gateway, apiKeysQuery(25, 'id')) },
    {
      id: '10c',
      what: 'gateway: a batch of 10, apiKeys(first: 16) to apiKeys(first: 25)',
      server: gateway,
      // Ten different reads, so that none shares another's upstream call: ten operations, ten calls.
      job: graphql(
        gateway,
        Array.from({ length: 10 }, (_, i) => apiKeysQuery(16 + i)),
      ),
    },
    // No upstream call and no field but __typename: what Yoga's pipeline and the plugins cost alone.
    { id: '10e', what: 'gateway: { __typename }, no upstream call', server: gateway, job: graphql(gateway, '{ __typename }') },
    {
      id: '10d',
      what: 'gateway with WORKERS=2: apiKeys(first: 25)',
      server: workersGateway,
      job: graphql(workersGateway, apiKeysQuery(25)),
    },
  ];
  // The compared build (--compare) in the same settings, after the rows: 8ac beside 8a, and so on.
  const twins = rows.flatMap(({ id, what, server, job }) => {
    const twin = compared.get(server);
    return twin
      ? [
          {
            id: `${id}c`,
            what: `compared ${what}`,
            server: twin,
            job: { ...job, url: job.url.replace(`:${server.port}/`, `:${twin.port}/`) },
          },
        ]
      : [];
  });
  return [...rows, ...twins];
}
