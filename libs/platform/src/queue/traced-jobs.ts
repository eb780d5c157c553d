import { BullModule } from '@nestjs/bullmq';
import { type Attributes, type Context, SpanKind, trace } from '@opentelemetry/api';
import type { Job, JobsOptions, Processor, Queue, WorkerOptions } from 'bullmq';
import { activeTraceContext, traceContextOf, within } from '../tracing/trace-context';
// Importing it installs the logged classes first; traceJobs() then installs these subclasses of them.
import { LoggedQueue, LoggedWorker } from './logged-bullmq';

/** The job data field carrying the producer's W3C trace context (`traceparent`, `tracestate`). */
export const TRACE_CONTEXT_FIELD = 'traceContext';

const tracer = trace.getTracer('foresight-jobs');

function jobAttributes(queue: string, operation: 'send' | 'process', jobName?: string): Attributes {
  return {
    'messaging.system': 'bullmq',
    'messaging.operation.type': operation,
    'messaging.destination.name': queue,
    ...(jobName !== undefined && { 'bullmq.job.name': jobName }),
  };
}

/** The payload with the active trace context added (nothing is added outside a sampled or remote trace). */
function withTraceContext<T>(data: T): T {
  if (typeof data !== 'object' || data === null) return data;
  const carrier = activeTraceContext();
  return carrier === undefined ? data : { ...data, [TRACE_CONTEXT_FIELD]: carrier };
}

/** The trace the job was queued in. */
function producerContext(data: unknown): Context {
  return traceContextOf(typeof data === 'object' && data !== null ? (data as Record<string, unknown>)[TRACE_CONTEXT_FIELD] : undefined);
}

/** A queue whose jobs carry, in their data, the trace they were queued in (an HTTP request, another job); its errors go to the outage log. */
class TracedQueue extends LoggedQueue {
  override add(name: string, data: unknown, opts?: JobsOptions): Promise<Job> {
    return tracer.startActiveSpan(`send ${this.name}`, { kind: SpanKind.PRODUCER, attributes: jobAttributes(this.name, 'send', name) }, (span) =>
      within(span, () => super.add(name, withTraceContext(data), opts)),
    );
  }

  override addBulk(jobs: Parameters<Queue['addBulk']>[0]): Promise<Job[]> {
    const names = new Set(jobs.map((job) => job.name));
    const attributes = { ...jobAttributes(this.name, 'send', names.size === 1 ? jobs[0].name : undefined), 'messaging.batch.message_count': jobs.length };
    return tracer.startActiveSpan(`send ${this.name}`, { kind: SpanKind.PRODUCER, attributes }, (span) =>
      within(span, () => super.addBulk(jobs.map((job) => ({ ...job, data: withTraceContext<unknown>(job.data) })))),
    );
  }
}

/** A worker processing each job in a span that continues the trace the job was queued in. */
class TracedWorker extends LoggedWorker {
  constructor(name: string, processor?: string | URL | null | Processor, opts?: WorkerOptions) {
    super(name, typeof processor === 'function' ? inJobSpan(name, processor) : processor, opts);
  }
}

function inJobSpan(queue: string, processor: Processor): Processor {
  return (job, token, signal) => {
    const attributes = { ...jobAttributes(queue, 'process', job.name), 'bullmq.job.attempts': job.attemptsMade + 1 };
    return tracer.startActiveSpan(`process ${queue}`, { kind: SpanKind.CONSUMER, attributes }, producerContext(job.data), (span) =>
      within(span, () => processor(job, token, signal)),
    );
  };
}

/**
 * Makes every queue and worker @nestjs/bullmq creates from now on traced. Called by the tracing
 * preload before the libs' modules register their queues; without tracing, BullMQ's own classes run.
 */
export function traceJobs(): void {
  BullModule.queueClass = TracedQueue;
  BullModule.workerClass = TracedWorker;
}
