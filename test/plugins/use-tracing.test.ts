import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { GraphQLError } from 'graphql';
import { createSchema } from 'graphql-yoga';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { useTracing } from '../../src/plugins/use-tracing.js';
import { post, yogaWith } from '../support/yoga.js';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
// As src/observability/tracing-export.ts does: the context manager and the W3C propagator become global.
provider.register();
const tracer = provider.getTracer('test');

/** Resolvers that report the span active while they run, where the upstream call's span would start. */
const schema = createSchema({
  typeDefs: /* GraphQL */ `
    type Query {
      activeSpan: String
      notFound: String
      slowNotFound: String
      failure: String
    }
  `,
  resolvers: {
    Query: {
      activeSpan: () => trace.getActiveSpan()?.spanContext().spanId ?? null,
      notFound: () => {
        throw new GraphQLError('No such record', { extensions: { code: 'NOT_FOUND' } });
      },
      // As an upstream call does: the operation's result comes after the others of its batch have started.
      slowNotFound: async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        throw new GraphQLError('No such record', { extensions: { code: 'NOT_FOUND' } });
      },
      failure: () => {
        throw new Error('an internal detail');
      },
    },
  },
});

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`;

/** What a span says, in one comparable object. */
const seen = (span: ReadableSpan) => ({
  name: span.name,
  kind: span.kind,
  attributes: span.attributes,
  status: span.status,
  parent: span.parentSpanContext && { traceId: span.parentSpanContext.traceId, spanId: span.parentSpanContext.spanId },
});

describe('useTracing', () => {
  const yoga = yogaWith([useTracing({ tracer })], { schema, batching: true });
  beforeEach(() => exporter.reset());
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });

  it('makes one SERVER span per operation, named by its type and name, active while the resolvers run', async () => {
    const { body } = await post(yoga, { query: 'query Keys { activeSpan }' }, { 'x-request-id': 'req-1' });
    const [span, ...others] = exporter.getFinishedSpans();
    expect(others).toEqual([]);
    expect(seen(span!)).toEqual({
      name: 'query Keys',
      kind: SpanKind.SERVER,
      attributes: { 'gateway.request_id': 'req-1', 'graphql.operation.type': 'query', 'graphql.operation.name': 'Keys' },
      status: { code: SpanStatusCode.UNSET },
      parent: undefined,
    });
    expect(body).toEqual({ data: { activeSpan: span!.spanContext().spanId } });
  });

  it('names an anonymous operation by its type alone', async () => {
    await post(yoga, { query: '{ activeSpan }' }, { 'x-request-id': 'req-2' });
    expect(exporter.getFinishedSpans().map(seen)).toEqual([
      expect.objectContaining({ name: 'query', attributes: { 'gateway.request_id': 'req-2', 'graphql.operation.type': 'query' } }),
    ]);
  });

  it('names an operation "other" when its name is longer than 64 characters', async () => {
    const longest = `Q${'a'.repeat(63)}`;
    await post(yoga, { query: `query Q${'a'.repeat(64)} { activeSpan }` });
    await post(yoga, { query: `query ${longest} { activeSpan }` });
    expect(exporter.getFinishedSpans().map((span) => [span.name, span.attributes['graphql.operation.name']])).toEqual([
      ['query other', 'other'],
      [`query ${longest}`, longest],
    ]);
  });

  it("continues the caller's trace from a valid traceparent", async () => {
    await post(yoga, { query: '{ activeSpan }' }, { traceparent: TRACEPARENT });
    const [span] = exporter.getFinishedSpans();
    expect([span!.spanContext().traceId, span!.parentSpanContext?.spanId, span!.parentSpanContext?.isRemote]).toEqual([
      CALLER_TRACE,
      CALLER_SPAN,
      true,
    ]);
  });

  it('starts a trace of its own for a traceparent that is not valid', async () => {
    await post(yoga, { query: '{ activeSpan }' }, { traceparent: `00-${'0'.repeat(32)}-${CALLER_SPAN}-01` });
    await post(yoga, { query: '{ activeSpan }' }, { traceparent: 'not a traceparent' });
    expect(exporter.getFinishedSpans().map((span) => span.parentSpanContext)).toEqual([undefined, undefined]);
  });

  it('starts every trace itself with traceCallerContext: false', async () => {
    const own = yogaWith([useTracing({ tracer, traceCallerContext: false })], { schema });
    await post(own, { query: '{ activeSpan }' }, { traceparent: TRACEPARENT });
    const [span] = exporter.getFinishedSpans();
    expect([span!.spanContext().traceId === CALLER_TRACE, span!.parentSpanContext]).toEqual([false, undefined]);
  });

  it('names the calling app from its client-awareness headers', async () => {
    await post(
      yoga,
      { query: '{ activeSpan }' },
      { 'graphql-client-name': 'web-app', 'graphql-client-version': '1.4.2', 'x-request-id': 'req-3' },
    );
    expect(exporter.getFinishedSpans()[0]!.attributes).toEqual({
      'gateway.request_id': 'req-3',
      'graphql.client.name': 'web-app',
      'graphql.client.version': '1.4.2',
      'graphql.operation.type': 'query',
    });
  });

  it('marks the span failed with the distinct error codes of the result', async () => {
    await post(yoga, { query: 'query Broken { notFound failure again: notFound activeSpan }' }, { 'x-request-id': 'req-4' });
    expect(exporter.getFinishedSpans().map(seen)).toEqual([
      expect.objectContaining({
        name: 'query Broken',
        attributes: {
          'gateway.request_id': 'req-4',
          'graphql.operation.type': 'query',
          'graphql.operation.name': 'Broken',
          'graphql.error.codes': ['NOT_FOUND', 'INTERNAL_SERVER_ERROR'],
        },
        status: { code: SpanStatusCode.ERROR, message: 'NOT_FOUND,INTERNAL_SERVER_ERROR' },
      }),
    ]);
  });

  it('keeps the first name of an operation refused before it ran, and marks it failed', async () => {
    await post(yoga, { query: 'query Typo { nothing }' }, { 'x-request-id': 'req-5' });
    expect(exporter.getFinishedSpans().map(seen)).toEqual([
      {
        name: 'graphql operation',
        kind: SpanKind.SERVER,
        attributes: { 'gateway.request_id': 'req-5', 'graphql.error.codes': ['GRAPHQL_VALIDATION_FAILED'] },
        status: { code: SpanStatusCode.ERROR, message: 'GRAPHQL_VALIDATION_FAILED' },
        parent: undefined,
      },
    ]);
  });

  it('makes one span per operation of a batch, each in the trace the request carried', async () => {
    await post(yoga, [{ query: 'query A { activeSpan }' }, { query: 'query B { activeSpan }' }], {
      traceparent: TRACEPARENT,
      'x-request-id': 'batch-1',
    });
    const spans = exporter.getFinishedSpans();
    expect(spans.map(seen).sort((a, b) => a.name.localeCompare(b.name))).toEqual(
      ['A', 'B'].map((name) => ({
        name: `query ${name}`,
        kind: SpanKind.SERVER,
        attributes: { 'gateway.request_id': 'batch-1', 'graphql.operation.type': 'query', 'graphql.operation.name': name },
        status: { code: SpanStatusCode.UNSET },
        parent: { traceId: CALLER_TRACE, spanId: CALLER_SPAN },
      })),
    );
  });

  it('marks each operation of a batch with its own errors, whichever finishes first', async () => {
    await post(yoga, [{ query: 'query A { slowNotFound }' }, { query: 'query B { activeSpan }' }]);
    const status = Object.fromEntries(
      exporter.getFinishedSpans().map((span) => [span.name, [span.status, span.attributes['graphql.error.codes']]]),
    );
    expect(status).toEqual({
      'query A': [{ code: SpanStatusCode.ERROR, message: 'NOT_FOUND' }, ['NOT_FOUND']],
      'query B': [{ code: SpanStatusCode.UNSET }, undefined],
    });
  });
});
