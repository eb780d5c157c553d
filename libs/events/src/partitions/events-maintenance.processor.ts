import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, type OnApplicationBootstrap } from '@nestjs/common';
import type { Job, Queue } from 'bullmq';
import { inBackground, JOBS, LOGGER, MonthlyPartitions, PARTITION_MONTHS_AHEAD, QUEUES, type JobPayloads, type Logger } from '@foresight/platform';
import { EventReencryption } from '../encryption/event-reencryption';

type EnsurePartitions = JobPayloads[typeof JOBS.events.ensurePartitions];

/** Translates the events queue's jobs to service calls, and schedules them. */
@Processor(QUEUES.events)
export class EventsMaintenanceProcessor extends WorkerHost implements OnApplicationBootstrap {
  constructor(
    private readonly partitions: MonthlyPartitions,
    private readonly reencryption: EventReencryption,
    @InjectQueue(QUEUES.events) private readonly queue: Queue,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    const data: EnsurePartitions = { monthsAhead: PARTITION_MONTHS_AHEAD };
    // Daily, and once at start so a fresh deployment has its partitions before the first night.
    inBackground(this.logger, 'register the event partitions job scheduler', () =>
      this.queue.upsertJobScheduler(JOBS.events.ensurePartitions, { pattern: '17 3 * * *', immediately: true }, { name: JOBS.events.ensurePartitions, data }),
    );
  }

  async process(job: Job<EnsurePartitions>): Promise<{ created: string[] } | { resealed: number }> {
    if (job.name === JOBS.events.reencrypt) {
      const resealed = await this.reencryption.run();
      this.logger.info({ resealed }, 'event payloads re-encrypted under the current key');
      return { resealed };
    }
    if (job.name !== JOBS.events.ensurePartitions) throw new Error(`unknown job ${job.name} on ${QUEUES.events}`);
    const created = await this.partitions.ensure('events', job.data.monthsAhead);
    if (created.length > 0) this.logger.info({ created }, 'event partitions created');
    return { created };
  }
}
