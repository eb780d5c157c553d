import { Processor, WorkerHost } from '@nestjs/bullmq';
import type { OnApplicationBootstrap } from '@nestjs/common';
import { type BackoffStrategy, DelayedError, type Job, type MinimalJob } from 'bullmq';
import { BackgroundWork, dispatchJob, type JobHandlers, type JobPayloads, JOBS, QUEUES, WEBHOOK_DELIVERY_BACKOFF } from '@foresight/platform';
import { WebhooksService } from '../webhooks.service';
import { DeliveryService } from './delivery.service';
import { DeliveryJobsService } from './delivery-jobs.service';
import { EndpointSlotsService } from './endpoint-slots.service';

type DeliverPayload = JobPayloads[typeof JOBS.webhooks.deliver];

/** Attempts in flight per worker process: far above the per-endpoint cap, so a few bad endpoints cannot take every slot. */
const DELIVERY_CONCURRENCY = 20;
/** How long a job waits when its endpoint is at its cap; jittered so waiting jobs do not return in lockstep. */
const BUSY_ENDPOINT_DELAY_MS = 1_000;

/**
 * Worker options are fixed when the decorator runs, before config exists, so the schedule travels in
 * each job (DeliveryJobsService puts the configured one there). After the n-th failed attempt, wait retryDelaysMs[n-1].
 */
export const scheduledBackoff: BackoffStrategy = (attemptsMade, type, _error, job?: MinimalJob<DeliverPayload>) => {
  const delay = type === WEBHOOK_DELIVERY_BACKOFF ? job?.data.retryDelaysMs[attemptsMade - 1] : undefined;
  return delay ?? -1; // -1: no further attempt
};

/**
 * Translates delivery jobs to DeliveryService calls, within the endpoint's in-flight cap, and queues
 * again those Redis lost; keeps the organizations subscribed to prediction.updated followed (re-scored
 * on new events) however Redis lost that.
 */
@Processor(QUEUES.webhooks, { concurrency: DELIVERY_CONCURRENCY, settings: { backoffStrategy: scheduledBackoff } })
export class WebhookDeliveryProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly handlers: JobHandlers<'webhooks', void> = {
    [JOBS.webhooks.deliver]: (job, token) => this.deliver(job, token),
  };

  constructor(
    private readonly deliveries: DeliveryService,
    private readonly slots: EndpointSlotsService,
    private readonly jobs: DeliveryJobsService,
    private readonly background: BackgroundWork,
    private readonly webhooks: WebhooksService,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.background.repeat('queue again the webhook deliveries Redis lost', () => this.jobs.resumeStranded());
    this.background.start('follow user activity for prediction.updated', () => this.webhooks.followUserActivityAgain());
    this.background.repeat('follow again the user activity Redis forgot', () => this.webhooks.followUserActivityAgain());
  }

  process(job: Job, token?: string): Promise<void> {
    return dispatchJob('webhooks', this.handlers, job, token);
  }

  private async deliver(job: Job<DeliverPayload>, token?: string): Promise<void> {
    const { deliveryId, webhookId, retryDelaysMs } = job.data;
    // A job queued by the earlier release names no organization; its delivery's row does.
    const organizationId = (job.data as Partial<DeliverPayload>).organizationId ?? (await this.deliveries.organizationOf(deliveryId));
    if (organizationId === null) return;
    const holder = job.id ?? deliveryId;
    if (!(await this.slots.acquire(webhookId, holder))) {
      // Wait outside the worker instead of occupying a slot; this does not count as an attempt.
      await job.moveToDelayed(Date.now() + BUSY_ENDPOINT_DELAY_MS * (1 + Math.random()), token);
      throw new DelayedError();
    }
    try {
      // What BullMQ will wait before the next attempt if this one fails (undefined: this is the last one).
      const retryInMs = retryDelaysMs[job.attemptsMade] ?? null;
      if ((await this.deliveries.attempt(organizationId, deliveryId, retryInMs)) === 'retry') {
        throw new Error(`delivery ${deliveryId} attempt ${job.attemptsMade + 1} failed; retrying in ${retryInMs} ms`);
      }
    } finally {
      await this.slots.release(webhookId, holder);
    }
  }
}
