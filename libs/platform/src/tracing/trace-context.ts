import { type Context, context, propagation, ROOT_CONTEXT, type Span, SpanStatusCode, trace } from '@opentelemetry/api';

/** A trace context as W3C's text fields (`traceparent`, `tracestate`): what crosses to a job or a child process. */
export type TraceCarrier = Record<string, string>;

const tracer = trace.getTracer('foresight');

/** The active trace context; undefined outside a sampled or remote trace, and always when tracing is off. */
export function activeTraceContext(): TraceCarrier | undefined {
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  return Object.keys(carrier).length === 0 ? undefined : carrier;
}

/** The context `carrier` continues (the root context when it is not a carrier). */
export function traceContextOf(carrier: unknown): Context {
  return typeof carrier === 'object' && carrier !== null ? propagation.extract(ROOT_CONTEXT, carrier) : ROOT_CONTEXT;
}

/** Runs `work` in the trace `carrier` continues (a job's, another process's): its spans become that trace's. */
export function inTraceContext<T>(carrier: TraceCarrier | undefined, work: () => Promise<T>): Promise<T> {
  return context.with(traceContextOf(carrier), work);
}

/** Runs `work` as `span`, ending it and marking it failed if `work` throws. */
export async function within<T>(span: Span, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    span.recordException(error as Error);
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}

/** Runs `work` in a span of its own, below the active one (nothing is recorded when tracing is off). */
export function inSpan<T>(name: string, work: () => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, (span) => within(span, work));
}
