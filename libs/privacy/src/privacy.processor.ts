import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, type OnApplicationBootstrap } from '@nestjs/common';
import type { Job, Queue } from 'bullmq';
import { BackgroundWork, dispatchJob, JOB_SCHEDULES, type JobHandlers, JOBS, LOGGER, type Logger, QUEUES } from '@foresight/platform';
import { PrivacyService } from './privacy.service';
import { RetentionService } from './retention/retention.service';

/** Translates the privacy queue's jobs to service calls, schedules retention, and queues again the erasure sweeps Redis lost. */
@Processor(QUEUES.privacy)
export class PrivacyProcessor extends WorkerHost implements OnApplicationBootstrap {
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
    private readonly background: BackgroundWork,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    const name = JOBS.privacy.retention;
    this.background.keepJobSchedulers(this.queue, 'retention', async () => [{ id: name, repeat: JOB_SCHEDULES[name], template: { name, data: {} } }]);
    this.background.repeat('queue again the erasure sweeps Redis lost', () => this.privacy.resumeSweeps());
  }

  process(job: Job): Promise<unknown> {
    return dispatchJob('privacy', this.handlers, job);
  }
}
