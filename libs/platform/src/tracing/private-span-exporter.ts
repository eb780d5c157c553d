import type { Attributes } from '@opentelemetry/api';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-node';

/**
 * Span attributes that may leave the process. Everything else an instrumentation records is dropped:
 * full URLs and paths (query strings with `userId=`, write keys in `/v1/projects/{writeKey}/settings`,
 * webhook receivers' tokens), headers, client addresses, user agents, Redis arguments, SQL parameter
 * values, job ids (some are per user). The route pattern, the parameterised SQL and the names stay.
 */
const EXPORTED_ATTRIBUTES = new Set([
  // HTTP server and client spans (stable semantic conventions)
  'http.request.method',
  'http.response.status_code',
  'http.route',
  'url.scheme',
  'network.protocol.version',
  'server.address',
  'server.port',
  'error.type',
  // PostgreSQL and Redis: db.statement / db.query.text hold parameterised SQL and Redis command names only
  'db.system',
  'db.system.name',
  'db.name',
  'db.namespace',
  'db.operation',
  'db.operation.name',
  'db.statement',
  'db.query.text',
  'net.peer.name',
  'net.peer.port',
  // BullMQ jobs (libs/platform/src/queue/traced-jobs.ts)
  'messaging.system',
  'messaging.operation.type',
  'messaging.destination.name',
  'messaging.batch.message_count',
  'bullmq.job.name',
  'bullmq.job.attempts',
]);

/** Of an exception event, only its class: messages can quote the values that failed (an id, a name). */
const EXPORTED_EVENT_ATTRIBUTES = new Set(['exception.type']);

function kept(attributes: Attributes | undefined, allowed: ReadonlySet<string>): Attributes {
  const result: Attributes = {};
  for (const [key, value] of Object.entries(attributes ?? {})) if (allowed.has(key)) result[key] = value;
  return result;
}

/** What of a span is exported: its attributes filtered, no status message, no link attributes. */
export function privateView(span: ReadableSpan): ReadableSpan {
  return {
    name: span.name,
    kind: span.kind,
    spanContext: () => span.spanContext(),
    parentSpanContext: span.parentSpanContext,
    startTime: span.startTime,
    endTime: span.endTime,
    status: { code: span.status.code },
    attributes: kept(span.attributes, EXPORTED_ATTRIBUTES),
    links: span.links.map((link) => ({ context: link.context })),
    events: span.events.map((event) => ({ name: event.name, time: event.time, attributes: kept(event.attributes, EXPORTED_EVENT_ATTRIBUTES) })),
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

/** Exports through `next` only what privateView keeps, whatever an instrumentation recorded. */
export class PrivateSpanExporter implements SpanExporter {
  constructor(private readonly next: SpanExporter) {}

  export(spans: ReadableSpan[], done: Parameters<SpanExporter['export']>[1]): void {
    this.next.export(spans.map(privateView), done);
  }

  shutdown(): Promise<void> {
    return this.next.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.next.forceFlush?.() ?? Promise.resolve();
  }
}
