import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, type OnApplicationBootstrap } from '@nestjs/common';
import type { Job, Queue } from 'bullmq';
import { inBackground, JOBS, LOGGER, QUEUES, type JobPayloads, type Logger } from '@foresight/platform';
import type { ErasedCounts } from './erasure/erasure-records';
import { PrivacyService } from './privacy.service';
import { RetentionService, type RetentionOutcome } from './retention/retention.service';

type SweepErasure = JobPayloads[typeof JOBS.privacy.sweepErasure];
type Retention = JobPayloads[typeof JOBS.privacy.retention];

/** Translates the privacy queue's jobs to service calls, and schedules retention. */
@Processor(QUEUES.privacy)
export class PrivacyProcessor extends WorkerHost implements OnApplicationBootstrap {
  constructor(
    private readonly privacy: PrivacyService,
    private readonly retention: RetentionService,
    @InjectQueue(QUEUES.privacy) private readonly queue: Queue<Retention>,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    // Daily, and once at start so a deployment that was down at night catches up.
    inBackground(this.logger, 'register the retention job scheduler', () =>
      this.queue.upsertJobScheduler(JOBS.privacy.retention, { pattern: '43 2 * * *', immediately: true }, { name: JOBS.privacy.retention, data: {} }),
    );
  }

  async process(job: Job<SweepErasure | Retention>): Promise<ErasedCounts | RetentionOutcome> {
    if (job.name === JOBS.privacy.sweepErasure) return this.privacy.sweep(job.data as SweepErasure);
    if (job.name !== JOBS.privacy.retention) throw new Error(`unknown job ${job.name} on ${QUEUES.privacy}`);
    const outcome = await this.retention.run();
    this.logger.info(outcome, 'retention applied');
    return outcome;
  }
}
