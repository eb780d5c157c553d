import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, type OnApplicationBootstrap } from '@nestjs/common';
import type { Job, Queue } from 'bullmq';
import { APP_CONFIG, inBackground, JOBS, LOGGER, MonthlyPartitions, PARTITION_MONTHS_AHEAD, QUEUES, type AppConfig, type JobPayloads, type Logger } from '@foresight/platform';
import { MonitoringRun } from '../monitoring/monitoring-run';

type EnsurePartitions = JobPayloads[typeof JOBS.predictions.ensurePartitions];
type Monitor = JobPayloads[typeof JOBS.predictions.monitor];

/** Translates the predictions queue's jobs to service calls, and schedules them. */
@Processor(QUEUES.predictions)
export class PredictionsProcessor extends WorkerHost implements OnApplicationBootstrap {
  constructor(
    private readonly partitions: MonthlyPartitions,
    private readonly monitoring: MonitoringRun,
    @InjectQueue(QUEUES.predictions) private readonly queue: Queue<EnsurePartitions | Monitor>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    inBackground(this.logger, 'register the predictions job schedulers', () => this.registerSchedulers());
  }

  private async registerSchedulers(): Promise<void> {
    // Daily, and once at start so a fresh deployment logs into monthly partitions from the first day.
    await this.queue.upsertJobScheduler(JOBS.predictions.ensurePartitions, { pattern: '23 3 * * *', immediately: true }, {
      name: JOBS.predictions.ensurePartitions,
      data: { monthsAhead: PARTITION_MONTHS_AHEAD },
    });
    await this.queue.upsertJobScheduler(JOBS.predictions.monitor, { pattern: this.config.monitoringSchedule, tz: 'UTC' }, {
      name: JOBS.predictions.monitor,
      data: {},
    });
  }

  async process(job: Job<EnsurePartitions | Monitor>): Promise<{ created: string[] } | { models: number }> {
    switch (job.name) {
      case JOBS.predictions.ensurePartitions: {
        const created = await this.partitions.ensure('predictions', (job.data as EnsurePartitions).monthsAhead);
        if (created.length > 0) this.logger.info({ created }, 'prediction partitions created');
        return { created };
      }
      case JOBS.predictions.monitor:
        return { models: await this.monitoring.runAll() };
      default:
        throw new Error(`unknown job ${job.name} on ${QUEUES.predictions}`);
    }
  }
}
