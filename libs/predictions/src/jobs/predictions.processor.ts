import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, type OnApplicationBootstrap } from '@nestjs/common';
import type { Job, Queue } from 'bullmq';
import {
  APP_CONFIG,
  type AppConfig,
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
  SCHEDULE_TIME_ZONE,
} from '@foresight/platform';
import { AudiencesService } from '../audiences/audiences.service';
import { MonitoringRunService } from '../monitoring/monitoring-run.service';

/** Translates the predictions queue's jobs to service calls, and schedules them. */
@Processor(QUEUES.predictions)
export class PredictionsProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly handlers: JobHandlers<'predictions'> = {
    [JOBS.predictions.ensurePartitions]: async (job) => {
      const created = await this.partitions.ensure('predictions', job.data.monthsAhead);
      if (created.length > 0) this.logger.info({ created }, 'prediction partitions created');
      return { created };
    },
    [JOBS.predictions.monitor]: async () => ({ models: await this.monitoring.runAll() }),
    [JOBS.predictions.recomputeAudiences]: async (job) => ({ computed: await this.audiences.recompute(job.data) }),
  };

  constructor(
    private readonly partitions: MonthlyPartitionsService,
    private readonly monitoring: MonitoringRunService,
    private readonly audiences: AudiencesService,
    @InjectQueue(QUEUES.predictions) private readonly queue: Queue,
    private readonly background: BackgroundWork,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    const partitions = JOBS.predictions.ensurePartitions;
    const monitor = JOBS.predictions.monitor;
    this.background.keepJobSchedulers(this.queue, 'prediction partitions and monitoring', async () => [
      { id: partitions, repeat: JOB_SCHEDULES[partitions], template: { name: partitions, data: { monthsAhead: PARTITION_MONTHS_AHEAD } } },
      { id: monitor, repeat: { pattern: this.config.monitoringSchedule, tz: SCHEDULE_TIME_ZONE }, template: { name: monitor, data: {} } },
    ]);
  }

  process(job: Job): Promise<unknown> {
    return dispatchJob('predictions', this.handlers, job);
  }
}
