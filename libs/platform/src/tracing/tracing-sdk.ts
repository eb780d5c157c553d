// The @nestjs/* modules loaded below (through traced-jobs) record their DI metadata only if this came first.
import 'reflect-metadata';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, ParentBasedSampler, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace-node';
import type { TracingSettings } from '../config/config';
import { SERVICE_VERSION } from '../version';
import { PrivateSpanExporter } from './private-span-exporter';

/** Probes and scrapes would be most of the traces and say nothing. */
const UNTRACED_PATHS = new Set(['/livez', '/readyz', '/metrics']);

/** A running tracer provider: flushing it sends the spans still buffered. */
export interface Tracing {
  shutdown(): Promise<void>;
}

/**
 * The OpenTelemetry SDK with the instrumentations Foresight needs (incoming and outgoing HTTP,
 * PostgreSQL, Redis) and BullMQ jobs carrying their producer's trace context, exported over OTLP/HTTP
 * (protobuf). Loaded only by startTracing, when an endpoint is configured.
 */
export function registerTracing(settings: TracingSettings, serviceName: string): Tracing {
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName, 'service.version': SERVICE_VERSION }),
    // A job or a downstream call follows the decision taken where its trace started.
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(settings.sampleRatio) }),
    // The ingestion writer's multi-row INSERT has thousands of placeholders.
    spanLimits: { attributeValueLengthLimit: 2048 },
    spanProcessors: [new BatchSpanProcessor(new PrivateSpanExporter(new OTLPTraceExporter({ url: `${settings.endpoint}/v1/traces` })))],
  });
  // AsyncLocalStorage context and W3C trace-context propagation.
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has((request.url ?? '').split('?')[0]),
        requireParentforOutgoingSpans: true,
      }),
      // Statements are parameterised; enhancedDatabaseReporting (the values) stays off.
      new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
      // Keys and arguments name users and hold event data: the command name only.
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
    ],
  });
  // Only now: it loads bullmq and ioredis, which the instrumentations above must see first.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- an import would load them before the instrumentations
  (require('../queue/traced-jobs') as typeof import('../queue/traced-jobs')).traceJobs();
  return provider;
}
