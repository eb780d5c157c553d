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
