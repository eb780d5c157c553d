import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { type EntityManager, Repository } from 'typeorm';
import { AppError, Encryptor, invalidRequest, newId, notFound, RedisAvailabilityService, SqlExecutor, UserActivityFeedService } from '@foresight/platform';
import { AddressPolicy, ipLiteral } from './address-policy';
import { DeliveryJobsService } from './delivery/delivery-jobs.service';
import { Webhook } from './webhook.entity';
import type { CreateWebhook, ListDeliveries } from './webhook.schema';
import { WebhookDelivery, type WebhookPayload } from './webhook-delivery.entity';
import { generateWebhookSecret, secretContext } from './webhook-signature';
import { PREDICTION_UPDATES_WANTED, PREDICTION_UPDATES_WANTED_BY, RETRY_DELIVERY } from './webhooks.sql';

export interface CreatedWebhook {
  webhook: Webhook;
  /** Shown once: only its encryption is stored. */
  secret: string;
}

/** Subscriptions and their delivery log; every query is scoped by the caller's organization. */
@Injectable()
export class WebhooksService {
  constructor(
    @InjectRepository(Webhook) private readonly webhooks: Repository<Webhook>,
    @InjectRepository(WebhookDelivery) private readonly deliveries: Repository<WebhookDelivery>,
    private readonly encryptor: Encryptor,
    private readonly policy: AddressPolicy,
    private readonly jobs: DeliveryJobsService,
    private readonly activity: UserActivityFeedService,
    private readonly redis: RedisAvailabilityService,
    private readonly sql: SqlExecutor,
  ) {}

  async create(organizationId: string, input: CreateWebhook): Promise<CreatedWebhook> {
    // Names are checked when delivering (they may resolve differently later); IP literals can be refused now.
    const address = ipLiteral(new URL(input.url));
    const refusal = address === null ? null : this.policy.refusal(address);
    if (refusal) throw invalidRequest(`url: ${refusal}`, [{ path: 'url', message: refusal }]);
    const id = newId('whk');
    const secret = generateWebhookSecret();
    // One transaction with the Redis step: when Redis cannot be told, no webhook row is left behind.
    await this.webhooks.manager.transaction(async (manager) => {
      await manager.insert(Webhook, {
        id,
        organizationId,
        url: input.url,
        events: input.events,
        secretEncrypted: this.encryptor.encrypt(secret, secretContext(id)),
        enabled: true,
        disabledReason: null,
        failingSince: null,
      });
      await this.followUserActivity(organizationId, manager);
    });
    return { webhook: await this.get(organizationId, id), secret };
  }

  list(organizationId: string): Promise<Webhook[]> {
    return this.webhooks.find({ where: { organizationId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /** Its deliveries go with it; jobs still queued find no row and stop. */
  async delete(organizationId: string, webhookId: string): Promise<Webhook> {
    const webhook = await this.get(organizationId, webhookId);
    await this.webhooks.manager.transaction(async (manager) => {
      await manager.delete(Webhook, { id: webhookId, organizationId });
      await this.followUserActivity(organizationId, manager);
    });
    return webhook;
  }

  async listDeliveries(organizationId: string, webhookId: string, query: ListDeliveries): Promise<WebhookDelivery[]> {
    await this.get(organizationId, webhookId);
    return this.deliveries.find({ where: { webhookId, organizationId }, order: { createdAt: 'DESC', id: 'DESC' }, take: query.limit });
  }

  /** failed | abandoned → pending, and one attempt now. One conditional UPDATE decides concurrent requests. */
  async retryDelivery(organizationId: string, webhookId: string, deliveryId: string): Promise<WebhookDelivery> {
    const webhook = await this.get(organizationId, webhookId);
    const delivery = await this.deliveries.findOneBy({ id: deliveryId, webhookId, organizationId });
    if (!delivery) throw notFound(`delivery ${deliveryId}`);
    if (!webhook.enabled) throw invalidRequest(`webhook ${webhookId} is disabled: ${webhook.disabledReason ?? 'no reason recorded'}`);
    if ((await this.sql.affected(RETRY_DELIVERY, [deliveryId, organizationId])) === 0) {
      throw invalidRequest(`delivery ${deliveryId} is ${delivery.status}; only failed or abandoned deliveries can be retried`);
    }
    await this.queueOrUndo(
      'the retry',
      () => this.jobs.manual({ deliveryId, webhookId, organizationId }, delivery.attempts),
      () => this.deliveries.update({ id: deliveryId, organizationId }, { status: delivery.status, nextAttemptAt: delivery.nextAttemptAt }),
    );
    return (await this.deliveries.findOneBy({ id: deliveryId, organizationId })) as WebhookDelivery;
  }

  /**
   * A `webhook.test` delivery to this endpoint alone, attempted once now, so an admin sees at once
   * whether the receiver answers and verifies the signature; a failed one can be retried like any other.
   */
  async sendTest(organizationId: string, webhookId: string): Promise<WebhookDelivery> {
    const webhook = await this.get(organizationId, webhookId);
    if (!webhook.enabled) throw invalidRequest(`webhook ${webhookId} is disabled: ${webhook.disabledReason ?? 'no reason recorded'}`);
    const payload: WebhookPayload = {
      id: newId('evt'),
      type: 'webhook.test',
      createdAt: new Date().toISOString(),
      data: { webhookId, message: 'A test event sent from Foresight; no action is needed.' },
    };
    const deliveryId = newId('dlv');
    await this.deliveries.insert({
      id: deliveryId,
      webhookId,
      organizationId,
      eventId: payload.id,
      eventType: payload.type,
      userId: null,
      payload,
      status: 'pending',
      attempts: 0,
      nextAttemptAt: new Date(),
    });
    await this.queueOrUndo(
      'the test event',
      () => this.jobs.manual({ deliveryId, webhookId, organizationId }, 0),
      () => this.deliveries.delete({ id: deliveryId, organizationId }),
    );
    return (await this.deliveries.findOneBy({ id: deliveryId, organizationId })) as WebhookDelivery;
  }

  /** Never leaves a delivery "pending" with no job behind it: when the job cannot be queued, `undo` puts the row back. */
  private async queueOrUndo(what: string, queue: () => Promise<void>, undo: () => Promise<unknown>): Promise<void> {
    try {
      await this.redis.within(`queue ${what}`, queue);
    } catch (error) {
      await undo();
      throw error instanceof AppError ? error : new AppError('unavailable', `Could not queue ${what}: ${(error as Error).message}`);
    }
  }

  /**
   * Every organization subscribed to prediction.updated followed again (Redis may have lost the set
   * while no webhook changed). Answers how many there are.
   */
  async followUserActivityAgain(): Promise<number> {
    const organizations = (await this.sql.rows(PREDICTION_UPDATES_WANTED_BY, [])).map((row) => row.organization_id);
    await this.activity.keepWanted(organizations);
    return organizations.length;
  }

  /**
   * prediction.updated needs users re-scored after their new events; ingestion queues that only while
   * an enabled webhook listens. After a webhook is made, deleted or disabled (in `manager`'s transaction, if given).
   */
  async followUserActivity(organizationId: string, manager?: EntityManager): Promise<void> {
    const [{ wanted }] = await (manager ? this.sql.within(manager) : this.sql).rows(PREDICTION_UPDATES_WANTED, [organizationId]);
    await this.activity.setWanted(organizationId, wanted);
  }

  private async get(organizationId: string, webhookId: string): Promise<Webhook> {
    const webhook = await this.webhooks.findOneBy({ id: webhookId, organizationId });
    if (!webhook) throw notFound(`webhook ${webhookId}`);
    return webhook;
  }
}
