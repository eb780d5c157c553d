import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Job } from 'bullmq';
import { dispatchJob, inBackground, isFinalFailure, type JobHandlers, type JobPayloads, JOBS, LOGGER, type Logger, QUEUES, repeatedInBackground, RESUME_EVERY_MS } from '@foresight/platform';
import { ModelsService } from '../registry/models.service';
import { LostTrainingLockError, TrainingRunService } from './training-run.service';

type TrainPayload = JobPayloads[typeof JOBS.training.train];

/**
 * Translates training jobs to TrainingRunService calls; the fit itself runs in a worker thread, so
 * the lock is renewed on time. A short lock lets a run whose worker was killed restart within
 * about half a minute (lock expiry plus one stalled check) instead of minutes.
 */
@Processor(QUEUES.training, { lockDuration: 20_000, stalledInterval: 10_000 })
export class TrainingProcessor extends WorkerHost implements OnApplicationBootstrap, OnApplicationShutdown {
  private resumer: NodeJS.Timeout | undefined;

  private readonly handlers: JobHandlers<'training', void> = {
    [JOBS.training.train]: (job, token) => {
      if (token === undefined) throw new Error(`training run of ${job.data.modelId}: no lock token to fence its version with`);
      return this.runs.run(job.data, token);
    },
    // Same transition and idempotence as POST /v1/models/retrain: a run in flight is left alone.
    [JOBS.training.scheduledRetrain]: async (job) => {
      await this.models.scheduledRetrain(job.data.organizationId, job.data.modelId);
    },
  };

  constructor(
    private readonly runs: TrainingRunService,
    private readonly models: ModelsService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    super();
  }

  /** Stored schedules are registered again, at most once a minute each, whatever an older release registered; runs and schedules Redis loses later, within a minute. */
  onApplicationBootstrap(): void {
    inBackground(this.logger, 'register the retraining schedules of stored models', () => this.models.registerStoredSchedules());
    this.resumer = repeatedInBackground(this.logger, 'queue again the training runs and retraining schedules Redis lost', RESUME_EVERY_MS, () =>
      Promise.all([this.models.resumeLostRuns(), this.models.restoreLostSchedules()]),
    );
  }

  onApplicationShutdown(): void {
    clearInterval(this.resumer);
  }

  process(job: Job, token?: string): Promise<void> {
    return dispatchJob('training', this.handlers, job, token);
  }

  /** A run that crashed or stalled on every attempt must not leave the model "retraining" forever. */
  @OnWorkerEvent('failed')
  async onFailed(job: Job | undefined, error: Error): Promise<void> {
    if (!isTrainJob(job) || !isFinalFailure(job, error) || error instanceof LostTrainingLockError) return;
    await this.runs.fail(job.data, `training run failed: ${error.message}`);
  }
}

function isTrainJob(job: Job | undefined): job is Job<TrainPayload> {
  return job?.name === JOBS.training.train;
}
