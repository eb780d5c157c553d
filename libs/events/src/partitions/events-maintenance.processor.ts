import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, type OnApplicationBootstrap } from '@nestjs/common';
import type { Job, Queue } from 'bullmq';
import {
  BackgroundWork,
  dispatchJob,
  JOB_SCHEDULES,
  type JobHandlers,
  JOBS,
  LOGGER,
  type Logger,
  MonthlyPartitionsService,
  PARTITION_MONTHS_AHEAD,
  QUEUES,
} from '@foresight/platform';
import { EventReencryptionService } from '../encryption/event-reencryption.service';

/** Translates the events queue's jobs to service calls, and schedules them. */
@Processor(QUEUES.events)
export class EventsMaintenanceProcessor extends WorkerHost implements OnApplicationBootstrap {
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
    private readonly background: BackgroundWork,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    const name = JOBS.events.ensurePartitions;
    this.background.keepJobSchedulers(this.queue, 'event partitions', async () => [{ id: name, repeat: JOB_SCHEDULES[name], template: { name, data: { monthsAhead: PARTITION_MONTHS_AHEAD } } }]);
  }

  process(job: Job): Promise<unknown> {
    return dispatchJob('events', this.handlers, job);
  }
}
