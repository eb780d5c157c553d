import type { Queue, RepeatOptions } from 'bullmq';
import type { Logger } from '../logging/logger';

/**
 * Start-up work on Redis (job schedulers) that must not hold the process's start: while Redis is
 * unreachable BullMQ keeps the commands and sends them once it is back, and the process serves
 * meanwhile (/readyz says Redis is down). A failure is logged, never thrown into the bootstrap.
 */
export function inBackground(logger: Logger, what: string, work: () => Promise<unknown>): void {
  work().catch((error: unknown) => logger.warn({ err: error }, `could not ${what}`));
}

/**
 * Work repeated every `everyMs` on a timer of the process, not a job: it must go on when Redis has
 * lost every job, its own included (the resumers that queue again from PostgreSQL what Redis lost).
 * Each run's failure is logged like inBackground's; clearInterval stops it.
 */
export function repeatedInBackground(logger: Logger, what: string, everyMs: number, work: () => Promise<unknown>): NodeJS.Timeout {
  const timer = setInterval(() => inBackground(logger, what, work), everyMs);
  timer.unref();
  return timer;
}

/** A job scheduler as `Queue.upsertJobScheduler` takes it. */
export interface KeptJobScheduler {
  id: string;
  repeat: Omit<RepeatOptions, 'key'>;
  template: { name: string; data: object };
}

/**
 * Registers the job schedulers now and, every `everyMs`, again those Redis no longer holds: it
 * restarted without its data, and a scheduler lives only there (retention, partitions, monitoring,
 * daily scoring would stop for good until a worker restarted). A scheduler Redis holds is left as it is.
 */
export function keepJobSchedulers(logger: Logger, queue: Queue, schedulers: readonly KeptJobScheduler[], everyMs: number): NodeJS.Timeout {
  const register = ({ id, repeat, template }: KeptJobScheduler) => queue.upsertJobScheduler(id, repeat, template);
  inBackground(logger, `register the ${schedulers.map((s) => s.id).join(', ')} job schedulers`, () => Promise.all(schedulers.map(register)));
  return repeatedInBackground(logger, 'register again the job schedulers Redis lost', everyMs, async () => {
    for (const scheduler of schedulers) if (!(await queue.getJobScheduler(scheduler.id))) await register(scheduler);
  });
}
