import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { APP_CONFIG, type AppConfig, contractJob, type JobPayloads, JOBS, QUEUES, SqlExecutor } from '@foresight/platform';
import { STRANDED_DELIVERIES } from './delivery.sql';

type DeliverPayload = JobPayloads[typeof JOBS.webhooks.deliver];

export interface QueuedDelivery {
  deliveryId: string;
  webhookId: string;
  organizationId: string;
}

/** A delivery queued with its schedule: the retries left after the attempts it already had. */
export interface ScheduledDelivery extends QueuedDelivery {
  attempts: number;
}

/** A pending delivery this long overdue has no job left behind it (Redis lost it) or one that is about to run: queued again, it runs once either way. */
const STRANDED_AFTER_SECONDS = 60;
const RESUME_AT_MOST = 1_000;

/** Queues delivery jobs: the first attempt of a fan-out with the configured retries, one manual retry, or the deliveries Redis lost. */
@Injectable()
export class DeliveryJobsService {
  constructor(
    @InjectQueue(QUEUES.webhooks) private readonly queue: Queue<DeliverPayload>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly sql: SqlExecutor,
  ) {}

  /** The job id is the delivery id: a fan-out (or a resumer) that runs again does not queue a delivery twice while Redis holds its job. */
  async scheduled(deliveries: readonly ScheduledDelivery[]): Promise<void> {
    const schedule = this.config.webhooks.retryScheduleMs;
    await this.queue.addBulk(
      deliveries.map(({ attempts, ...delivery }) => contractJob(JOBS.webhooks.deliver, { ...delivery, retryDelaysMs: schedule.slice(attempts) }, delivery.deliveryId)),
    );
  }

  /**
   * Queues again every organization's deliveries left pending past their due time: Redis restarted
   * without its data, a worker died between a row and its job, or the job failed for good without
   * writing the row (its last attempt met the database down). A job that will still run is kept as it
   * is (same job id); a failed one is removed first, or its id would keep the new one out for the
   * week failed jobs are kept. An attempt of a delivery no longer pending sends nothing, so a receiver
   * never gets a delivery twice from this. Answers how many were looked at.
   */
  async resumeStranded(): Promise<number> {
    const stranded = await this.sql.rows(STRANDED_DELIVERIES, [STRANDED_AFTER_SECONDS, RESUME_AT_MOST]);
    for (const { id } of stranded) {
      const job = await this.queue.getJob(id);
      if (job && (await job.isFailed())) await job.remove();
    }
    await this.scheduled(stranded.map((row) => ({ deliveryId: row.id, webhookId: row.webhook_id, organizationId: row.organization_id, attempts: row.attempts })));
    return stranded.length;
  }

  /** A retry an admin asked for: one attempt now (no retry schedule); `attemptsSoFar` keeps its job id apart from earlier jobs. */
  async manual(delivery: QueuedDelivery, attemptsSoFar: number): Promise<void> {
    const retry = contractJob(JOBS.webhooks.deliver, { ...delivery, retryDelaysMs: [] }, `${delivery.deliveryId}-manual-${attemptsSoFar}`);
    await this.queue.add(retry.name, retry.data, retry.opts);
  }
}
