import { describe, expect } from 'vitest';
import { createLogger, routeConsole } from '../../src/observability/logger.js';
import { AUTH, TOKEN } from '../support/auth.js';
import { spawnGateway } from '../support/child-gateway.js';
import { gatewayOverUpstream, test as it } from '../support/fixtures.js';
import { captureLogs, lineBase } from '../support/logs.js';
import { envelope } from '../support/recording-upstream.js';
import { apiKeyRecord } from '../support/records.js';

const KEYS = 'query Keys { a: apiKeys(first: 1) { edges { node { id } } } b: apiKeys(first: 2) { edges { node { id } } } }';
const RENAME = 'mutation Rename { updateCategory(input: { id: "cat_404", name: "x" }) { category { id } } }';

describe('pino redaction', () => {
  it('censors credentials at the top level, one object down and in header objects', () => {
    const { logger, raw } = captureLogs();
    logger.info(
      {
        authorization: 'Bearer top-level-secret',
        token: 'token-secret',
        req: { headers: { authorization: 'Bearer header-secret', cookie: 'sid=cookie-secret', accept: 'application/json' } },
        res: { headers: { 'set-cookie': 'sid=set-cookie-secret' } },
        user: { password: 'password-secret', name: 'kept' },
      },
      'credentials everywhere',
    );
    expect(JSON.parse(raw[0]!)).toEqual({
      ...lineBase(30),
      authorization: '[redacted]',
      token: '[redacted]',
      req: { headers: { authorization: '[redacted]', cookie: '[redacted]', accept: 'application/json' } },
      res: { headers: { 'set-cookie': '[redacted]' } },
      user: { password: '[redacted]', name: 'kept' },
      msg: 'credentials everywhere',
    });
    expect(raw[0]).not.toMatch(/secret/);
  });

  it('writes errors as class and message, without a stack trace', () => {
    const { logger, lines } = captureLogs();
    logger.error({ err: Object.assign(new TypeError('boom'), { code: 'E_BOOM' }) }, 'failed');
    expect(lines()).toEqual([{ ...lineBase(50), err: { type: 'TypeError', message: 'boom', code: 'E_BOOM' }, msg: 'failed' }]);
  });

  it('writes JSON, not pretty lines, when told so even on a terminal', () => {
    const raw: string[] = [];
    createLogger({ level: 'info', pretty: false, destination: { write: (line: string) => void raw.push(line) } }).info('plain');
    expect(JSON.parse(raw[0]!)).toMatchObject({ level: 30, msg: 'plain' });
  });
});

const logs = captureLogs('debug');
const linesTest = gatewayOverUpstream(
  (request) => {
    if (request.method === 'PATCH')
      return { status: 404, body: { success: false, result: null, errors: [{ message: 'No such category' }], links: {} } };
    if (request.query.limit === '2')
      return { status: 500, body: { success: false, result: null, errors: [{ message: 'database down' }], links: {} } };
    return { body: envelope([apiKeyRecord(1)]) };
  },
  { logger: logs.logger, upstreamRetries: 0 },
);

describe('request and upstream-call lines', () => {
  const it = linesTest;

  it('logs one line per request and one debug line per upstream call, all with the request id', async ({ gateway }) => {
    const answer = await gateway.graphql(KEYS, {
      headers: { ...AUTH, cookie: 'session=cookie-value', 'x-request-id': 'req-log-1' },
    });
    expect(answer.body.errors?.map((e) => (e.extensions as { code: string }).code)).toEqual(['UPSTREAM_ERROR']);

    const calls = logs.lines('upstream call').filter((line) => line.requestId === 'req-log-1');
    expect(calls.sort((x, y) => String(x.status).localeCompare(String(y.status)))).toEqual([
      {
        ...lineBase(20),
        requestId: 'req-log-1',
        method: 'GET',
        route: '/api_keys',
        status: 200,
        durationMs: expect.any(Number),
        errorCode: null,
        msg: 'upstream call',
      },
      {
        ...lineBase(20),
        requestId: 'req-log-1',
        method: 'GET',
        route: '/api_keys',
        status: 500,
        durationMs: expect.any(Number),
        errorCode: 'UPSTREAM_ERROR',
        msg: 'upstream call',
      },
    ]);
    expect(logs.lines('graphql request').filter((line) => line.requestId === 'req-log-1')).toEqual([
      {
        ...lineBase(40),
        requestId: 'req-log-1',
        clientName: null,
        clientVersion: null,
        operationName: 'Keys',
        operationType: 'query',
        status: 200,
        durationMs: expect.any(Number),
        upstreamCalls: 2,
        estimatedCalls: 2,
        outcome: 'partial',
        errorCodes: ['UPSTREAM_ERROR'],
        msg: 'graphql request',
      },
    ]);
  });

  it('logs a failed mutation as an error outcome at info level: the caller asked for something missing', async ({ gateway }) => {
    await gateway.graphql(RENAME, { headers: { ...AUTH, 'x-request-id': 'req-log-2' } });
    expect(logs.lines('graphql request').filter((line) => line.requestId === 'req-log-2')).toEqual([
      {
        ...lineBase(30),
        requestId: 'req-log-2',
        clientName: null,
        clientVersion: null,
        operationName: 'Rename',
        operationType: 'mutation',
        status: 200,
        durationMs: expect.any(Number),
        upstreamCalls: 1,
        estimatedCalls: 1,
        outcome: 'error',
        errorCodes: ['NOT_FOUND'],
        msg: 'graphql request',
      },
    ]);
  });

  it('logs a request that never parsed, without an operation', async ({ gateway }) => {
    await gateway.graphql('query Broken {', { headers: { ...AUTH, 'x-request-id': 'req-log-3' } });
    expect(logs.lines('graphql request').filter((line) => line.requestId === 'req-log-3')).toEqual([
      {
        ...lineBase(30),
        requestId: 'req-log-3',
        clientName: null,
        clientVersion: null,
        operationName: null,
        operationType: null,
        status: 400,
        durationMs: expect.any(Number),
        upstreamCalls: 0,
        estimatedCalls: null,
        outcome: 'error',
        errorCodes: ['GRAPHQL_PARSE_FAILED'],
        msg: 'graphql request',
      },
    ]);
  });

  it("logs variables that do not fit their types as the caller's mistake: the code it got, at info level", async ({ gateway }) => {
    const answer = await gateway.graphql('query Page($f: Int) { apiKeys(first: $f) { nodes { id } } }', {
      variables: { f: 'ten' },
      headers: { ...AUTH, 'x-request-id': 'req-log-variables' },
    });
    expect([answer.status, answer.body.errors?.map((error) => (error.extensions as { code: string }).code)]).toEqual([
      400,
      ['BAD_USER_INPUT'],
    ]);
    expect(logs.lines('graphql request').filter((line) => line.requestId === 'req-log-variables')).toEqual([
      {
        ...lineBase(30),
        requestId: 'req-log-variables',
        clientName: null,
        clientVersion: null,
        operationName: 'Page',
        operationType: 'query',
        status: 400,
        durationMs: expect.any(Number),
        upstreamCalls: 0,
        // Estimated as it ran: variables that do not fit make no call.
        estimatedCalls: 0,
        outcome: 'error',
        errorCodes: ['BAD_USER_INPUT'],
        msg: 'graphql request',
      },
    ]);
  });

  it('logs one line per operation of a batch, in order, with the one request id and its place in the batch', async ({ gateway }) => {
    const response = await fetch(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...AUTH, 'x-request-id': 'req-log-batch' },
      body: JSON.stringify([{ query: RENAME }, { query: 'query One { apiKeys(first: 1) { nodes { id } } }' }, { query: '{' }]),
    });
    expect(response.headers.get('x-request-id')).toBe('req-log-batch');
    expect((await response.json()) as unknown[]).toHaveLength(3);
    const lines = logs.lines('graphql request').filter((line) => line.requestId === 'req-log-batch');
    expect(
      lines.map(({ batch, operationName, operationType, upstreamCalls, outcome, errorCodes }) => ({
        batch,
        operationName,
        operationType,
        upstreamCalls,
        outcome,
        errorCodes,
      })),
    ).toEqual([
      {
        batch: { index: 0, size: 3 },
        operationName: 'Rename',
        operationType: 'mutation',
        upstreamCalls: 1,
        outcome: 'error',
        errorCodes: ['NOT_FOUND'],
      },
      { batch: { index: 1, size: 3 }, operationName: 'One', operationType: 'query', upstreamCalls: 1, outcome: 'ok', errorCodes: [] },
      {
        batch: { index: 2, size: 3 },
        operationName: null,
        operationType: null,
        upstreamCalls: 0,
        outcome: 'error',
        errorCodes: ['GRAPHQL_PARSE_FAILED'],
      },
    ]);
  });

  it('records an operation name past 64 characters, sent as operationName or written in the document, as "other"', async ({ gateway }) => {
    const headers = (id: string) => ({ 'content-type': 'application/json', ...AUTH, 'x-request-id': id });
    // 300 KB sent, for an operation the document does not hold: refused, and logged with the name it was sent under.
    const sent = await fetch(gateway.url, {
      method: 'POST',
      headers: headers('req-log-name-1'),
      body: JSON.stringify({ query: KEYS, operationName: 'A'.repeat(300_000) }),
    });
    expect(sent.status).toBe(400);
    // The longest a document may spell one (MAX_DOCUMENT_BYTES), and the longest that is kept: 64 characters.
    const long = `Q${'a'.repeat(60_000)}`;
    const longest = `Q${'a'.repeat(63)}`;
    await gateway.graphql(`query ${long} { __typename }`, { headers: headers('req-log-name-2') });
    await gateway.graphql(`query ${longest} { __typename }`, { headers: headers('req-log-name-3') });
    const ids = ['req-log-name-1', 'req-log-name-2', 'req-log-name-3'];
    const lines = logs.lines('graphql request').filter((line) => ids.includes(line.requestId as string));
    expect(lines.map((line) => [line.requestId, line.operationName, line.errorCodes])).toEqual([
      ['req-log-name-1', 'other', ['OPERATION_RESOLUTION_FAILURE']],
      ['req-log-name-2', 'other', []],
      ['req-log-name-3', longest, []],
    ]);
    for (const raw of logs.raw.filter((line) => ids.some((id) => line.includes(id)))) expect(raw.length).toBeLessThan(500);
  });

  it('never writes the token, the cookie, the upstream address or a stack trace', ({ upstream }) => {
    const all = logs.raw.join('');
    expect(logs.raw.length).toBeGreaterThanOrEqual(6);
    expect(all).not.toContain(TOKEN);
    expect(all).not.toContain('cookie-value');
    expect(all).not.toContain(new URL(upstream.url).host);
    expect(all).not.toMatch(/\n\s+at /);
  });
});

describe('LOG_LEVEL=info', () => {
  it('leaves out the upstream-call lines', async ({ start }) => {
    const upstream = await start.upstream(() => ({ body: envelope([apiKeyRecord(1)]) }));
    const logs = captureLogs('info');
    const gateway = await start.gateway({ upstreamUrl: new URL(upstream.url), logger: logs.logger });
    await gateway.graphql(KEYS, { headers: AUTH });
    expect(logs.lines().map((line) => line.msg)).toEqual(['graphql request']);
  });
});

describe('a read cache hit', () => {
  it('is logged under the name of the operation it repeats, sent without operationName', async ({ start }) => {
    const upstream = await start.upstream(() => ({ body: envelope([apiKeyRecord(1)]) }));
    const logs = captureLogs('info');
    const gateway = await start.gateway({ upstreamUrl: new URL(upstream.url), logger: logs.logger, cacheTtlMs: 60_000 });
    const query = 'query Keys { apiKeys(first: 1) { edges { node { id } } } }';
    const answers = [await gateway.graphql(query, { headers: AUTH }), await gateway.graphql(query, { headers: AUTH })];
    expect(answers[1]!.body).toEqual(answers[0]!.body);
    expect(upstream.requests).toHaveLength(1);
    expect(
      logs
        .lines('graphql request')
        .map(({ operationName, operationType, cache, upstreamCalls }) => ({ operationName, operationType, cache, upstreamCalls })),
    ).toEqual([
      { operationName: 'Keys', operationType: 'query', cache: 'miss', upstreamCalls: 1 },
      { operationName: 'Keys', operationType: 'query', cache: 'hit', upstreamCalls: 0 },
    ]);
  });
});

describe('only JSON lines in production', () => {
  it('what a dependency prints with console becomes a line at its level, an Error as its class and message', () => {
    const { logger, lines } = captureLogs('debug');
    const restore = routeConsole(logger);
    try {
      console.error('Scalar with variable inputs detected for parsing AST literals. This is not supported.');
      console.warn('deprecated: %s', 'option', new TypeError('boom'));
      console.log('x'.repeat(3_000));
    } finally {
      restore();
    }
    expect(lines()).toEqual([
      { ...lineBase(50), console: 'error', msg: 'Scalar with variable inputs detected for parsing AST literals. This is not supported.' },
      { ...lineBase(40), console: 'warn', msg: 'deprecated: option TypeError: boom' },
      { ...lineBase(30), console: 'log', msg: `${'x'.repeat(2_000)}…` },
    ]);
  });

  it('a subgraph answering _entities with inline representations writes nothing but JSON lines', async ({ start, onTestFinished }) => {
    const upstream = await start.upstream(() => ({ body: envelope([apiKeyRecord(3)]) }));
    const gateway = await spawnGateway({ UPSTREAM_URL: upstream.url, FEDERATION: 'true' });
    onTestFinished(() => gateway.close());
    const post = async (query: string, variables?: Record<string, unknown>) => {
      const response = await fetch(`http://127.0.0.1:${gateway.port}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...AUTH },
        body: JSON.stringify({ query, variables }),
      });
      return response.json();
    };
    expect(await post('{ _entities(representations: [{ __typename: "ApiKey", id: "k3" }]) { ... on ApiKey { name } } }')).toEqual({
      data: { _entities: [{ name: 'Key 3' }] },
    });
    // A variable inside the literal is not read: the representation lacks its key.
    const withVariable = await post(
      'query ($id: ID) { _entities(representations: [{ __typename: "ApiKey", id: $id }]) { ... on ApiKey { name } } }',
      { id: 'k3' },
    );
    expect(withVariable.errors.map((error: { extensions: { code: string } }) => error.extensions.code)).toEqual(['BAD_USER_INPUT']);
    await gateway.waitFor('graphql request', 2);
    expect(gateway.other).toEqual([]);
  });
});
