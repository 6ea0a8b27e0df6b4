import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { afterAll, describe, expect } from 'vitest';
import { AUTH } from '../support/auth.js';
import { gatewayOverUpstream, test as it } from '../support/fixtures.js';
import { envelope } from '../support/recording-upstream.js';

const KEYS = 'query Keys { a: apiKeys(first: 1) { edges { node { id } } } b: apiKeys(first: 2) { edges { node { id } } } }';
const RENAME = 'mutation Rename { updateCategory(input: { id: "cat_404", name: "x" }) { category { id } } }';
const traceparent = (span: ReadableSpan) => `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`;

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
// As src/observability/tracing.ts does: the context manager and W3C propagator become global.
provider.register();
const tracingTest = gatewayOverUpstream(
  (request) =>
    request.method === 'PATCH'
      ? { status: 404, body: { success: false, result: null, errors: [{ message: 'No such category' }], links: {} } }
      : { body: envelope([]) },
  { tracerProvider: provider },
);

describe('OpenTelemetry spans', () => {
  const it = tracingTest;
  it.beforeEach(() => {
    exporter.reset();
  });
  afterAll(() => provider.shutdown());

  it('makes a server span per operation with a client span per upstream call, and sends each call its traceparent', async ({
    gateway,
    upstream,
  }) => {
    await gateway.graphql(KEYS, { headers: { ...AUTH, 'x-request-id': 'trace-req-1' } });
    const spans = exporter.getFinishedSpans();
    const operation = spans.find((span) => span.kind === SpanKind.SERVER)!;
    const calls = spans.filter((span) => span.kind === SpanKind.CLIENT);
    expect(spans).toHaveLength(3);
    expect({
      name: operation.name,
      attributes: operation.attributes,
      status: operation.status,
      parent: operation.parentSpanContext,
    }).toEqual({
      name: 'query Keys',
      attributes: { 'gateway.request_id': 'trace-req-1', 'graphql.operation.type': 'query', 'graphql.operation.name': 'Keys' },
      status: { code: SpanStatusCode.UNSET },
      parent: undefined,
    });
    expect(
      calls.map((span) => ({
        name: span.name,
        attributes: span.attributes,
        trace: span.spanContext().traceId,
        parent: span.parentSpanContext?.spanId,
      })),
    ).toEqual(
      [1, 2].map(() => ({
        name: 'GET /api_keys',
        attributes: { 'http.request.method': 'GET', 'url.template': '/api_keys', 'http.response.status_code': 200 },
        trace: operation.spanContext().traceId,
        parent: operation.spanContext().spanId,
      })),
    );
    expect(upstream.requests.map((request) => request.headers.traceparent).sort()).toEqual(calls.map(traceparent).sort());
  });

  it('names the headers an upstream call forwarded on its span, never their values', async ({ start }) => {
    const upstream = await start.upstream(() => ({ body: envelope([]) }));
    const gateway = await start.gateway({
      upstreamUrl: new URL(upstream.url),
      tracerProvider: provider,
      forwardHeaders: [
        { name: 'accept-language', upstreamName: 'accept-language' },
        { name: 'x-tenant-id', upstreamName: 'x-vms-tenant' },
      ],
    });
    await gateway.graphql('{ apiKeys(first: 1) { nodes { id } } }', {
      headers: { ...AUTH, 'accept-language': 'de', 'x-tenant-id': 'secret-tenant' },
    });
    const call = exporter.getFinishedSpans().find((span) => span.kind === SpanKind.CLIENT)!;
    expect(call.attributes['gateway.forwarded_headers']).toEqual(['accept-language', 'x-vms-tenant']);
    expect(JSON.stringify(exporter.getFinishedSpans().map((span) => span.attributes))).not.toContain('secret-tenant');
  });

  it('names an operation past 64 characters "other" on its span, as in logs and metrics', async ({ gateway }) => {
    const long = `Q${'a'.repeat(60_000)}`;
    const longest = `Q${'a'.repeat(63)}`;
    await gateway.graphql(`query ${long} { __typename }`);
    await gateway.graphql(`query ${longest} { __typename }`);
    const spans = exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.SERVER);
    expect(spans.map((span) => [span.name, span.attributes['graphql.operation.name']])).toEqual([
      ['query other', 'other'],
      [`query ${longest}`, longest],
    ]);
    expect(JSON.stringify(spans.map((span) => [span.name, span.attributes])).length).toBeLessThan(500);
  });

  it("continues the caller's trace when it sends a traceparent", async ({ gateway, upstream }) => {
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    await gateway.graphql(KEYS, { headers: { ...AUTH, traceparent: `00-${callerTrace}-00f067aa0ba902b7-01` } });
    const operation = exporter.getFinishedSpans().find((span) => span.kind === SpanKind.SERVER)!;
    expect([operation.spanContext().traceId, operation.parentSpanContext?.spanId, operation.parentSpanContext?.isRemote]).toEqual([
      callerTrace,
      '00f067aa0ba902b7',
      true,
    ]);
    expect(upstream.requests.every((request) => String(request.headers.traceparent).startsWith(`00-${callerTrace}-`))).toBe(true);
  });

  it("sends the upstream only the gateway's own trace context: never the caller's baggage or tracestate", async ({ gateway, upstream }) => {
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    await gateway.graphql(KEYS, {
      headers: {
        ...AUTH,
        traceparent: `00-${callerTrace}-00f067aa0ba902b7-01`,
        tracestate: 'vendor=opaque-caller-state',
        baggage: 'userId=alice,tenant=acme',
      },
    });
    const calls = exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.CLIENT);
    expect(
      upstream.requests.map((request) => [request.headers.traceparent, request.headers.tracestate, request.headers.baggage]).sort(),
    ).toEqual(calls.map((span) => [traceparent(span), undefined, undefined]).sort());
  });

  it('names the calling app on the operation span, from its client-awareness headers', async ({ gateway }) => {
    await gateway.graphql(KEYS, {
      headers: { ...AUTH, 'apollographql-client-name': 'web-app', 'apollographql-client-version': '1.4.2' },
    });
    const operation = exporter.getFinishedSpans().find((span) => span.kind === SpanKind.SERVER)!;
    expect([operation.attributes['graphql.client.name'], operation.attributes['graphql.client.version']]).toEqual(['web-app', '1.4.2']);
  });

  it('starts its own trace with TRACE_CALLER_CONTEXT=false, whatever traceparent the caller sends', async ({ upstream, start }) => {
    const publicGateway = await start.gateway({ upstreamUrl: new URL(upstream.url), tracerProvider: provider, traceCallerContext: false });
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    await publicGateway.graphql(KEYS, { headers: { ...AUTH, traceparent: `00-${callerTrace}-00f067aa0ba902b7-01` } });
    const operation = exporter.getFinishedSpans().find((span) => span.kind === SpanKind.SERVER)!;
    expect(operation.spanContext().traceId).not.toBe(callerTrace);
    expect(operation.parentSpanContext).toBeUndefined();
  });

  it('marks both spans as failed with the error code when the upstream refuses', async ({ gateway }) => {
    await gateway.graphql(RENAME, { headers: AUTH });
    const spans = exporter.getFinishedSpans();
    expect(spans.map((span) => ({ name: span.name, status: span.status, attributes: span.attributes }))).toEqual([
      {
        name: 'PATCH /categories/:id',
        status: { code: SpanStatusCode.ERROR, message: 'NOT_FOUND' },
        attributes: {
          'http.request.method': 'PATCH',
          'url.template': '/categories/:id',
          'http.response.status_code': 404,
          'error.type': 'NOT_FOUND',
        },
      },
      {
        name: 'mutation Rename',
        status: { code: SpanStatusCode.ERROR, message: 'NOT_FOUND' },
        attributes: {
          'gateway.request_id': expect.any(String),
          'graphql.operation.type': 'mutation',
          'graphql.operation.name': 'Rename',
          'graphql.error.codes': ['NOT_FOUND'],
        },
      },
    ]);
  });
});

describe('without a tracer provider', () => {
  it('sends no traceparent upstream', async ({ start }) => {
    const upstream = await start.upstream(() => ({ body: envelope([]) }));
    const gateway = await start.gateway({ upstreamUrl: new URL(upstream.url) });
    await gateway.graphql(KEYS, { headers: AUTH });
    expect(upstream.requests.map((request) => request.headers.traceparent)).toEqual([undefined, undefined]);
  });
});
