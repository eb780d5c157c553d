import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, type OnApplicationBootstrap } from '@nestjs/common';
import type { Job, Queue } from 'bullmq';
import { JOBS, LOGGER, MonthlyPartitions, QUEUES, type JobPayloads, type Logger } from '@foresight/platform';

const MONTHS_AHEAD = 3;
type EnsurePartitions = JobPayloads[typeof JOBS.predictions.ensurePartitions];

/** Translates the predictions queue's jobs to service calls, and schedules them. */
@Processor(QUEUES.predictions)
export class PredictionsMaintenanceProcessor extends WorkerHost implements OnApplicationBootstrap {
  constructor(
    private readonly partitions: MonthlyPartitions,
    @InjectQueue(QUEUES.predictions) private readonly queue: Queue,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    super();
  }

  async onApplicationBootstrap(): Promise<void> {
    const data: EnsurePartitions = { monthsAhead: MONTHS_AHEAD };
    // Daily, and once at start so a fresh deployment logs into monthly partitions from the first day.
    await this.queue.upsertJobScheduler(JOBS.predictions.ensurePartitions, { pattern: '23 3 * * *', immediately: true }, {
      name: JOBS.predictions.ensurePartitions,
      data,
    });
  }

  async process(job: Job<EnsurePartitions>): Promise<{ created: string[] }> {
    if (job.name !== JOBS.predictions.ensurePartitions) throw new Error(`unknown job ${job.name} on ${QUEUES.predictions}`);
    const created = await this.partitions.ensure('predictions', 'predicted_at', job.data.monthsAhead);
    if (created.length > 0) this.logger.info({ created }, 'prediction partitions created');
    return { created };
  }
}
