import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import protobuf from 'protobufjs';

/**
 * The part of OTLP's trace export request (opentelemetry/proto/collector/trace/v1/trace_service.proto
 * and the messages it uses) that the tests read; protobuf skips the fields left out.
 */
const OTLP_TRACES = protobuf.parse(`
  syntax = "proto3";
  message AnyValue { oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; ArrayValue array_value = 5; } }
  message ArrayValue { repeated AnyValue values = 1; }
  message KeyValue { string key = 1; AnyValue value = 2; }
  message Resource { repeated KeyValue attributes = 1; }
  message Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; }
  message Status { string message = 2; int32 code = 3; }
  message Span {
    bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; string name = 5; int32 kind = 6;
    repeated KeyValue attributes = 9; repeated Event events = 11; Status status = 15;
  }
  message InstrumentationScope { string name = 1; }
  message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; }
  message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
  message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
`).root.lookupType('ExportTraceServiceRequest');

type Value = string | number | boolean | Value[];
type KeyValues = Array<{ key: string; value?: Record<string, unknown> }>;

export interface ReceivedSpan {
  readonly service: string;
  readonly scope: string;
  readonly traceId: string;
  readonly spanId: string;
  /** Empty for a trace's root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP's numbering: 2 server, 3 client, 4 producer, 5 consumer. */
  readonly kind: number;
  readonly attributes: Record<string, Value>;
  readonly events: Array<{ name: string; attributes: Record<string, Value> }>;
  readonly statusMessage: string;
  /** Everything a span exported, as text, for searching it for values that must never be there. */
  readonly text: string;
}

function valueOf(any: Record<string, unknown> | undefined): Value {
  if (!any) return '';
  if (any.arrayValue) return ((any.arrayValue as { values?: Array<Record<string, unknown>> }).values ?? []).map(valueOf);
  // int64 arrives as a decimal string (longs: String).
  if (any.intValue !== undefined) return Number(any.intValue);
  const [value] = Object.values(any);
  return value as Value;
}

function attributesOf(list: KeyValues | undefined): Record<string, Value> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, valueOf(value)]));
}

const hex = (bytes: Uint8Array | undefined) => Buffer.from(bytes ?? []).toString('hex');

/** Decodes one OTLP/HTTP protobuf export body into flat spans. */
export function decodeTraces(body: Buffer): ReceivedSpan[] {
  const request = OTLP_TRACES.toObject(OTLP_TRACES.decode(body), { longs: String, defaults: false }) as {
    resourceSpans?: Array<{ resource?: { attributes?: KeyValues }; scopeSpans?: Array<{ scope?: { name?: string }; spans?: Array<Record<string, unknown>> }> }>;
  };
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
    return (resourceSpans.scopeSpans ?? []).flatMap((scopeSpans) =>
      (scopeSpans.spans ?? []).map((span) => {
        const decoded = {
          service,
          scope: scopeSpans.scope?.name ?? '',
          traceId: hex(span.traceId as Uint8Array),
          spanId: hex(span.spanId as Uint8Array),
          parentSpanId: hex(span.parentSpanId as Uint8Array),
          name: typeof span.name === 'string' ? span.name : '',
          kind: Number(span.kind ?? 0),
          attributes: attributesOf(span.attributes as KeyValues),
          events: ((span.events ?? []) as Array<{ name?: string; attributes?: KeyValues }>).map((event) => ({ name: event.name ?? '', attributes: attributesOf(event.attributes) })),
          statusMessage: String((span.status as { message?: string } | undefined)?.message ?? ''),
        };
        return { ...decoded, text: JSON.stringify(decoded) };
      }),
    );
  });
}

/**
 * A local OTLP/HTTP trace receiver (what a collector listens to on :4318): accepts protobuf exports on
 * `/v1/traces` and keeps the decoded spans, or, with `discard`, answers without decoding (a sink for
 * benchmarks).
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  exports = 0;

  private constructor(
    private readonly server: Server,
    readonly endpoint: string,
  ) {}

  static async start(options: { discard?: boolean } = {}): Promise<OtlpReceiver> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const receiver = new OtlpReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== '/v1/traces') {
          res.writeHead(404).end();
          return;
        }
        receiver.exports += 1;
        if (!options.discard) {
          const body = Buffer.concat(chunks);
          receiver.spans.push(...decodeTraces(req.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body));
        }
        // An empty ExportTraceServiceResponse: everything accepted.
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      });
    });
    return receiver;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
