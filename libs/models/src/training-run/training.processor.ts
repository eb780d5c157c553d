import { InjectQueue, OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import type { OnApplicationBootstrap } from '@nestjs/common';
import type { Job, Queue } from 'bullmq';
import { BackgroundWork, dispatchJob, isFinalFailure, type JobHandlers, type JobPayloads, JOBS, QUEUES } from '@foresight/platform';
import { ModelsService } from '../registry/models.service';
import { LostTrainingLockError, TrainingRunService } from './training-run.service';

type TrainPayload = JobPayloads[typeof JOBS.training.train];

/**
 * Translates training jobs to TrainingRunService calls; the matrix and the fit run in a process of
 * their own, so the lock is renewed on time. A short lock lets a run whose worker was killed restart
 * within about half a minute (lock expiry plus one stalled check) instead of minutes.
 */
@Processor(QUEUES.training, { lockDuration: 20_000, stalledInterval: 10_000 })
export class TrainingProcessor extends WorkerHost implements OnApplicationBootstrap {
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
    @InjectQueue(QUEUES.training) private readonly queue: Queue,
    private readonly background: BackgroundWork,
  ) {
    super();
  }

  /** Stored schedules are registered again, at most once a minute each, whatever an older release registered; runs and schedules Redis loses later, within a minute. */
  onApplicationBootstrap(): void {
    this.background.keepJobSchedulers(this.queue, 'models\' retraining', () => this.models.storedSchedules());
    this.background.repeat('queue again the training runs Redis lost', () => this.models.resumeLostRuns());
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
