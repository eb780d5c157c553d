import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, type OnApplicationBootstrap } from '@nestjs/common';
import type { Job } from 'bullmq';
import { inBackground, JOBS, LOGGER, QUEUES, type JobPayloads, type Logger } from '@foresight/platform';
import { ModelsService } from '../registry/models.service';
import { TrainingRunService } from './training-run.service';

type TrainPayload = JobPayloads[typeof JOBS.training.train];
type ScheduledRetrainPayload = JobPayloads[typeof JOBS.training.scheduledRetrain];

/**
 * Translates training jobs to TrainingRunService calls; the fit itself runs in a worker thread, so
 * the lock is renewed on time. A short lock lets a run whose worker was killed restart within
 * about half a minute (lock expiry plus one stalled check) instead of minutes.
 */
@Processor(QUEUES.training, { lockDuration: 20_000, stalledInterval: 10_000 })
export class TrainingProcessor extends WorkerHost implements OnApplicationBootstrap {
  constructor(
    private readonly runs: TrainingRunService,
    private readonly models: ModelsService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    super();
  }

  /** Stored schedules are registered again, at most once a minute each, whatever an older release registered. */
  onApplicationBootstrap(): void {
    inBackground(this.logger, 'register the retraining schedules of stored models', () => this.models.registerStoredSchedules());
  }

  async process(job: Job<TrainPayload | ScheduledRetrainPayload>): Promise<void> {
    switch (job.name) {
      case JOBS.training.train:
        return this.runs.run(job.data as TrainPayload);
      case JOBS.training.scheduledRetrain: {
        // Same transition and idempotence as POST /v1/models/retrain: a run in flight is left alone.
        const { organizationId, modelId } = job.data;
        await this.models.scheduledRetrain(organizationId, modelId);
        return;
      }
      default:
        throw new Error(`unknown job ${job.name} on ${QUEUES.training}`);
    }
  }

  /** A run that crashed or stalled on every attempt must not leave the model "retraining" forever. */
  @OnWorkerEvent('failed')
  async onFailed(job: Job<TrainPayload | ScheduledRetrainPayload> | undefined, error: Error): Promise<void> {
    if (!job || job.name !== JOBS.training.train || job.attemptsMade < (job.opts.attempts ?? 1)) return;
    await this.runs.fail(job.data as TrainPayload, `training run failed: ${error.message}`);
  }
}
