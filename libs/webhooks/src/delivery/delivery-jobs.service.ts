import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { APP_CONFIG, type AppConfig, contractJob, type JobPayloads, JOBS, QUEUES } from '@foresight/platform';

type DeliverPayload = JobPayloads[typeof JOBS.webhooks.deliver];

export interface QueuedDelivery {
  deliveryId: string;
  webhookId: string;
  organizationId: string;
}

/** Queues delivery jobs: the first attempt of a fan-out with the configured retries, or one manual retry. */
@Injectable()
export class DeliveryJobsService {
  constructor(
    @InjectQueue(QUEUES.webhooks) private readonly queue: Queue<DeliverPayload>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The job id is the delivery id: a fan-out that runs again does not queue a delivery twice. */
  async scheduled(deliveries: readonly QueuedDelivery[]): Promise<void> {
    const retryDelaysMs = [...this.config.webhooks.retryScheduleMs];
    await this.queue.addBulk(
      deliveries.map((delivery) => contractJob(JOBS.webhooks.deliver, { ...delivery, retryDelaysMs }, delivery.deliveryId)),
    );
  }

  /** A retry an admin asked for: one attempt now (no retry schedule); `attemptsSoFar` keeps its job id apart from earlier jobs. */
  async manual(delivery: QueuedDelivery, attemptsSoFar: number): Promise<void> {
    const retry = contractJob(JOBS.webhooks.deliver, { ...delivery, retryDelaysMs: [] }, `${delivery.deliveryId}-manual-${attemptsSoFar}`);
    await this.queue.add(retry.name, retry.data, retry.opts);
  }
}
