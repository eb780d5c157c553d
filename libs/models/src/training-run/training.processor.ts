import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import type { Job } from 'bullmq';
import { JOBS, QUEUES, type JobPayloads } from '@foresight/platform';
import { TrainingRunService } from './training-run.service';

type TrainPayload = JobPayloads[typeof JOBS.training.train];

/** Translates training jobs to TrainingRunService calls. The fit itself runs in a worker thread. */
@Processor(QUEUES.training, { lockDuration: 60_000 })
export class TrainingProcessor extends WorkerHost {
  constructor(private readonly runs: TrainingRunService) {
    super();
  }

  async process(job: Job<TrainPayload>): Promise<void> {
    if (job.name !== JOBS.training.train) throw new Error(`unknown job ${job.name} on ${QUEUES.training}`);
    await this.runs.run(job.data);
  }

  /** A run that crashed or stalled on every attempt must not leave the model "retraining" forever. */
  @OnWorkerEvent('failed')
  async onFailed(job: Job<TrainPayload> | undefined, error: Error): Promise<void> {
    if (!job || job.attemptsMade < (job.opts.attempts ?? 1)) return;
    await this.runs.fail(job.data, `training run failed: ${error.message}`);
  }
}
