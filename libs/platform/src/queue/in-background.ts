import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { Queue, RepeatOptions } from 'bullmq';
import type { Logger } from '../logging/logger';
import { LOGGER } from '../logging/logger.provider';
import { RESUME_EVERY_MS } from './queue-contract';

/** A job scheduler as `Queue.upsertJobScheduler` takes it. */
export interface KeptJobScheduler {
  id: string;
  repeat: Omit<RepeatOptions, 'key'>;
  template: { name: string; data: object };
}

/**
 * A process's work outside jobs: start-up work on Redis that must not hold the start, and work
 * repeated every RESUME_EVERY_MS on a timer of the process (the resumers that queue again from
 * PostgreSQL what Redis lost, the job schedulers kept registered), which must go on when Redis has
 * lost every job, its own included. Each failure is logged, never thrown. Every timer started here is
 * cleared when the application's modules are destroyed: no caller keeps one.
 */
@Injectable()
export class BackgroundWork implements OnModuleDestroy {
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(@Inject(LOGGER) private readonly logger: Logger) {}

  /**
   * Runs `work` without waiting for it: while Redis is unreachable BullMQ keeps the commands and sends
   * them once it is back, and the process serves meanwhile (/readyz says Redis is down).
   */
  start(what: string, work: () => Promise<unknown>): void {
    work().catch((error: unknown) => this.logger.warn({ err: error }, `could not ${what}`));
  }

  /** Runs `work` every RESUME_EVERY_MS until the application shuts down. */
  repeat(what: string, work: () => Promise<unknown>): void {
    const timer = setInterval(() => this.start(what, work), RESUME_EVERY_MS);
    timer.unref();
    this.timers.add(timer);
  }

  /**
   * Registers the job schedulers `schedulers` answers now and, every RESUME_EVERY_MS, again those
   * Redis no longer holds: it restarted without its data, and a scheduler lives only there (retention,
   * partitions, monitoring, daily scoring, the models' retraining would stop for good until a worker
   * restarted). A scheduler Redis holds is left as it is. `schedulers` is asked each time, so a list
   * kept elsewhere (the models' schedules, in PostgreSQL) is followed as it changes.
   */
  keepJobSchedulers(queue: Queue, what: string, schedulers: () => Promise<readonly KeptJobScheduler[]>): void {
    const register = ({ id, repeat, template }: KeptJobScheduler) => queue.upsertJobScheduler(id, repeat, template);
    this.start(`register the ${what} job schedulers`, async () => {
      for (const scheduler of await schedulers()) await register(scheduler);
    });
    this.repeat(`register again the ${what} job schedulers Redis lost`, async () => {
      const kept = await schedulers();
      if (kept.length === 0) return;
      const held = new Set((await queue.getJobSchedulers()).map((scheduler) => scheduler.key));
      for (const scheduler of kept) if (!held.has(scheduler.id)) await register(scheduler);
    });
  }

  onModuleDestroy(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers.clear();
  }
}
