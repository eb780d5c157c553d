import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Job, Queue } from 'bullmq';
import { dispatchJob, JOB_SCHEDULES, type JobHandlers, JOBS, keepJobSchedulers, LOGGER, type Logger, QUEUES, repeatedInBackground, RESUME_EVERY_MS } from '@foresight/platform';
import { PrivacyService } from './privacy.service';
import { RetentionService } from './retention/retention.service';

/** Translates the privacy queue's jobs to service calls, schedules retention, and queues again the erasure sweeps Redis lost. */
@Processor(QUEUES.privacy)
export class PrivacyProcessor extends WorkerHost implements OnApplicationBootstrap, OnApplicationShutdown {
  private resumer: NodeJS.Timeout | undefined;
  private schedulers: NodeJS.Timeout | undefined;

  private readonly handlers: JobHandlers<'privacy'> = {
    [JOBS.privacy.sweepErasure]: (job) => this.privacy.sweep(job.data),
    [JOBS.privacy.retention]: async () => {
      const outcome = await this.retention.run();
      this.logger.info(outcome, 'retention applied');
      return outcome;
    },
  };

  constructor(
    private readonly privacy: PrivacyService,
    private readonly retention: RetentionService,
    @InjectQueue(QUEUES.privacy) private readonly queue: Queue,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    const name = JOBS.privacy.retention;
    this.schedulers = keepJobSchedulers(this.logger, this.queue, [{ id: name, repeat: JOB_SCHEDULES[name], template: { name, data: {} } }], RESUME_EVERY_MS);
    this.resumer = repeatedInBackground(this.logger, 'queue again the erasure sweeps Redis lost', RESUME_EVERY_MS, () => this.privacy.resumeSweeps());
  }

  onApplicationShutdown(): void {
    clearInterval(this.resumer);
    clearInterval(this.schedulers);
  }

  process(job: Job): Promise<unknown> {
    return dispatchJob('privacy', this.handlers, job);
  }
}
