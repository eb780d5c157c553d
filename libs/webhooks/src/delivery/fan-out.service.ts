import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { type DomainEvent, newId, SqlExecutor } from '@foresight/platform';
import { WebhookDelivery, type WebhookPayload } from '../webhook-delivery.entity';
import { DeliveryJobsService } from './delivery-jobs.service';
import { SUBSCRIBED_WEBHOOKS } from './fan-out.sql';

/** A domain event becomes one delivery (a row and a job) per enabled subscription of its organization. */
@Injectable()
export class FanOutService {
  constructor(
    private readonly sql: SqlExecutor,
    @InjectRepository(WebhookDelivery) private readonly deliveries: Repository<WebhookDelivery>,
    private readonly jobs: DeliveryJobsService,
  ) {}

  /** Safe to run again for the same event (a retried announce job): rows and jobs are keyed, nothing is sent twice. */
  async announce(event: DomainEvent): Promise<number> {
    const subscribers = await this.sql.rows(SUBSCRIBED_WEBHOOKS, [event.organizationId, event.type]);
    if (subscribers.length === 0) return 0;
    const webhookIds = subscribers.map((webhook) => webhook.id);
    const payload: WebhookPayload = { id: event.id, type: event.type, createdAt: event.createdAt, data: event.data };
    const userId = 'userId' in event.data ? event.data.userId : null;
    await this.deliveries
      .createQueryBuilder()
      .insert()
      .values(
        webhookIds.map((webhookId) => ({
          id: newId('dlv'),
          webhookId,
          organizationId: event.organizationId,
          eventId: event.id,
          eventType: event.type,
          userId,
          payload,
          status: 'pending' as const,
          attempts: 0,
          nextAttemptAt: new Date(),
        })),
      )
      .orIgnore() // unique (webhook_id, event_id): the rows of an earlier run stay
      .execute();
    // Queue whatever is still pending, the earlier run's rows included; BullMQ ignores job ids it already holds.
    const pending = await this.deliveries.find({
      select: { id: true, webhookId: true, attempts: true },
      where: { organizationId: event.organizationId, webhookId: In(webhookIds), eventId: event.id, status: 'pending' },
    });
    await this.jobs.scheduled(pending.map((delivery) => ({ deliveryId: delivery.id, webhookId: delivery.webhookId, organizationId: event.organizationId, attempts: delivery.attempts })));
    return pending.length;
  }
}
