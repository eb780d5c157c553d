import { Processor, WorkerHost } from '@nestjs/bullmq';
import type { Job } from 'bullmq';
import { storedUserIdFromStorage } from '@foresight/events';
import { dispatchJob, DomainEventsService, type JobHandlers, type JobPayloads, JOBS, QUEUES } from '@foresight/platform';
import { PredictionService } from '../serving/prediction.service';

type Rescore = JobPayloads[typeof JOBS.userActivity.rescore];

/** Users with new events (debounced per user by the job id) are re-scored; a changed label is announced as prediction.updated. */
@Processor(QUEUES.userActivity, { concurrency: 4 })
export class UserActivityProcessor extends WorkerHost {
  private readonly handlers: JobHandlers<'userActivity', { changed: number }> = {
    [JOBS.userActivity.rescore]: (job) => this.rescore(job),
  };

  constructor(
    private readonly predictions: PredictionService,
    private readonly domainEvents: DomainEventsService,
  ) {
    super();
  }

  process(job: Job): Promise<{ changed: number }> {
    return dispatchJob('userActivity', this.handlers, job);
  }

  private async rescore(job: Job<Rescore>): Promise<{ changed: number }> {
    const { organizationId, userId } = job.data;
    // Against the labels before the job was queued: a retry after a death between the log rows and the announcement announces the same changes, under the same ids.
    const changes = await this.predictions.rescore(organizationId, storedUserIdFromStorage(userId), new Date(job.timestamp));
    for (const change of changes) {
      await this.domainEvents.publish(
        organizationId,
        'prediction.updated',
        { userId, model: change.model, modelId: change.modelId, version: change.version, label: change.label, previousLabel: change.previousLabel, confidence: change.confidence },
        // Stable across retries of this job, so a retried job announces a change once.
        `${job.id}-${job.timestamp}-${change.modelId}`,
      );
    }
    return { changed: changes.length };
  }
}
