import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { type DomainEvent, DomainEventsService, newId, SqlExecutor, userOfEvent } from '@foresight/platform';
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
    private readonly domainEvents: DomainEventsService,
  ) {}

  /**
   * Safe to run again for the same event (a retried announce job, one queued again from the outbox):
   * rows and jobs are keyed, nothing is sent twice. The event leaves the outbox in the transaction
   * that stores its deliveries.
   */
  async announce(published: DomainEvent): Promise<number> {
    const subscribers = await this.sql.rows(SUBSCRIBED_WEBHOOKS, [published.organizationId, published.type]);
    const webhookIds = subscribers.map((webhook) => webhook.id);
    await this.deliveries.manager.transaction(async (manager) => {
      const event = await this.domainEvents.fannedOut(this.sql.within(manager), published);
      if (webhookIds.length === 0) return;
      const payload: WebhookPayload = { id: event.id, type: event.type, createdAt: event.createdAt, data: event.data };
      await manager
        .createQueryBuilder()
        .insert()
        .into(WebhookDelivery)
        .values(
          webhookIds.map((webhookId) => ({
            id: newId('dlv'),
            webhookId,
            organizationId: event.organizationId,
            eventId: event.id,
            eventType: event.type,
            userId: userOfEvent(event),
            payload,
            status: 'pending' as const,
            attempts: 0,
            nextAttemptAt: new Date(),
          })),
        )
        .orIgnore() // unique (webhook_id, event_id): the rows of an earlier run stay
        .execute();
    });
    if (webhookIds.length === 0) return 0;
    // Queue whatever is still pending, the earlier run's rows included; BullMQ ignores job ids it already holds.
    const pending = await this.deliveries.find({
      select: { id: true, webhookId: true, attempts: true },
      where: { organizationId: published.organizationId, webhookId: In(webhookIds), eventId: published.id, status: 'pending' },
    });
    await this.jobs.scheduled(pending.map((delivery) => ({ deliveryId: delivery.id, webhookId: delivery.webhookId, organizationId: published.organizationId, attempts: delivery.attempts })));
    return pending.length;
  }
}
