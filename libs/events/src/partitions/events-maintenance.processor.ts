import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Job, Queue } from 'bullmq';
import {
  dispatchJob,
  JOB_SCHEDULES,
  type JobHandlers,
  JOBS,
  keepJobSchedulers,
  LOGGER,
  type Logger,
  MonthlyPartitionsService,
  PARTITION_MONTHS_AHEAD,
  QUEUES,
  RESUME_EVERY_MS,
} from '@foresight/platform';
import { EventReencryptionService } from '../encryption/event-reencryption.service';

/** Translates the events queue's jobs to service calls, and schedules them. */
@Processor(QUEUES.events)
export class EventsMaintenanceProcessor extends WorkerHost implements OnApplicationBootstrap, OnApplicationShutdown {
  private schedulers: NodeJS.Timeout | undefined;

  private readonly handlers: JobHandlers<'events'> = {
    [JOBS.events.ensurePartitions]: async (job) => {
      const created = await this.partitions.ensure('events', job.data.monthsAhead);
      if (created.length > 0) this.logger.info({ created }, 'event partitions created');
      return { created };
    },
    [JOBS.events.reencrypt]: async () => {
      const resealed = await this.reencryption.run();
      this.logger.info({ resealed }, 'event payloads re-encrypted under the current key');
      return { resealed };
    },
  };

  constructor(
    private readonly partitions: MonthlyPartitionsService,
    private readonly reencryption: EventReencryptionService,
    @InjectQueue(QUEUES.events) private readonly queue: Queue,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    const name = JOBS.events.ensurePartitions;
    this.schedulers = keepJobSchedulers(this.logger, this.queue, [{ id: name, repeat: JOB_SCHEDULES[name], template: { name, data: { monthsAhead: PARTITION_MONTHS_AHEAD } } }], RESUME_EVERY_MS);
  }

  onApplicationShutdown(): void {
    clearInterval(this.schedulers);
  }

  process(job: Job): Promise<unknown> {
    return dispatchJob('events', this.handlers, job);
  }
}
