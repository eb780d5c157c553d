import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { APP_CONFIG, type AppConfig, Encryptor, isInfrastructureUnavailable, LOGGER, type Logger, SERVICE_VERSION, SqlExecutor } from '@foresight/platform';
import { Webhook } from '../webhook.entity';
import { type DeliveryStatus, WebhookDelivery } from '../webhook-delivery.entity';
import { secretContext, signatureHeader } from '../webhook-signature';
import { WebhooksService } from '../webhooks.service';
import { NOTE_WEBHOOK_FAILURE, RECORD_ATTEMPT, RECORD_SUCCESS } from './delivery.sql';
import { type AttemptResult, WebhookSenderService } from './webhook-sender.service';

/**
 * How long a 2xx's outcome is retried while PostgreSQL cannot be reached. Failing the job instead
 * would send the event again to a receiver that already took it; only a process killed in between
 * still does.
 */
const RECORD_SUCCESS_PATIENCE_MS = 120_000;

/** `retry`: the attempt failed and the queue should run the next one of the schedule. */
export type AttemptOutcome = 'done' | 'retry';

/** One delivery attempt: sign, send, record the outcome, and disable an endpoint that fails for too long. */
@Injectable()
export class DeliveryService {
  private readonly disabledReason: string;

  constructor(
    @InjectRepository(Webhook) private readonly webhooks: Repository<Webhook>,
    @InjectRepository(WebhookDelivery) private readonly deliveries: Repository<WebhookDelivery>,
    private readonly encryptor: Encryptor,
    private readonly sender: WebhookSenderService,
    private readonly sql: SqlExecutor,
    private readonly subscriptions: WebhooksService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.disabledReason = `every delivery failed for longer than WEBHOOK_DISABLE_AFTER (${config.webhooks.disableAfterMs / 3_600_000} h)`;
  }

  /** `retryInMs`: when the next attempt will run if this one fails, or null when this is the last one. */
  async attempt(organizationId: string, deliveryId: string, retryInMs: number | null): Promise<AttemptOutcome> {
    const delivery = await this.deliveries.findOneBy({ id: deliveryId, organizationId });
    // Gone with its webhook, or settled by an earlier run of a duplicated job.
    if (!delivery || delivery.status !== 'pending') return 'done';
    const webhook = await this.webhooks
      .createQueryBuilder('webhook')
      .addSelect('webhook.secretEncrypted')
      .where('webhook.id = :id AND webhook.organizationId = :organizationId', { id: delivery.webhookId, organizationId })
      .getOne();
    if (!webhook) return 'done';
    if (!webhook.enabled) {
      await this.deliveries.update({ id: deliveryId, organizationId }, { status: 'abandoned', lastError: `webhook disabled: ${webhook.disabledReason ?? ''}` });
      return 'done';
    }

    const result = await this.send(webhook, delivery);
    const record = (status: DeliveryStatus, nextAttemptAt: Date | null) =>
      this.sql.affected(RECORD_ATTEMPT, [deliveryId, organizationId, result.statusCode, result.error, result.latencyMs, status, nextAttemptAt?.toISOString() ?? null]);
    if (result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300) {
      await this.recordSuccess(organizationId, delivery, result.statusCode, result.latencyMs);
      return 'done';
    }
    const stillEnabled = await this.noteFailure(organizationId, webhook.id);
    const status: DeliveryStatus = !stillEnabled ? 'abandoned' : retryInMs === null ? 'failed' : 'pending';
    const nextAttemptAt = status === 'pending' && retryInMs !== null ? new Date(Date.now() + retryInMs) : null;
    await record(status, nextAttemptAt);
    this.logger.warn(
      { webhookId: webhook.id, deliveryId, statusCode: result.statusCode, error: result.error, detail: result.detail, status },
      'webhook delivery attempt failed',
    );
    return status === 'pending' ? 'retry' : 'done';
  }

  /** RECORD_SUCCESS, tried again while PostgreSQL is unavailable (a restart, a failover) for RECORD_SUCCESS_PATIENCE_MS. */
  private async recordSuccess(organizationId: string, delivery: WebhookDelivery, statusCode: number, latencyMs: number): Promise<void> {
    const giveUpAt = Date.now() + RECORD_SUCCESS_PATIENCE_MS;
    for (let pause = 250; ; pause = Math.min(pause * 2, 5_000)) {
      try {
        await this.sql.affected(RECORD_SUCCESS, [delivery.id, organizationId, delivery.webhookId, statusCode, latencyMs]);
        return;
      } catch (error) {
        if (!isInfrastructureUnavailable(error) || Date.now() + pause > giveUpAt) throw error;
        this.logger.warn({ deliveryId: delivery.id, err: error }, 'delivered, but PostgreSQL is unavailable: recording the success again shortly');
        await sleep(pause);
      }
    }
  }

  /**
   * The organization of a delivery whose job names none (queued by the earlier release): the one read
   * of a delivery by its id alone. Null when the delivery is gone.
   */
  async organizationOf(deliveryId: string): Promise<string | null> {
    return (await this.deliveries.findOne({ select: { organizationId: true }, where: { id: deliveryId } }))?.organizationId ?? null;
  }

  private send(webhook: Webhook, delivery: WebhookDelivery): Promise<AttemptResult> {
    const secret = this.encryptor.decryptText(webhook.secretEncrypted, secretContext(webhook.id));
    const body = JSON.stringify(delivery.payload);
    return this.sender.send(new URL(webhook.url), body, {
      'content-type': 'application/json',
      'user-agent': `Foresight-Webhooks/${SERVICE_VERSION}`,
      signature: signatureHeader(secret, body, Math.floor(Date.now() / 1000)),
      // The same on every attempt of this event to this endpoint: receivers dedupe on it.
      'foresight-delivery-id': delivery.id,
    });
  }

  /** NOTE_WEBHOOK_FAILURE after WEBHOOK_DISABLE_AFTER. Returns whether the webhook is still enabled (false: it is gone). */
  private async noteFailure(organizationId: string, webhookId: string): Promise<boolean> {
    const enabled = (await this.sql.first(NOTE_WEBHOOK_FAILURE, [webhookId, organizationId, this.config.webhooks.disableAfterMs, this.disabledReason]))?.enabled ?? false;
    if (!enabled) {
      this.logger.warn({ webhookId }, 'webhook disabled: its deliveries kept failing');
      // Re-scoring after new events stops when it was the organization's last prediction.updated listener.
      await this.subscriptions.followUserActivity(organizationId).catch((error: unknown) => {
        this.logger.warn({ err: error, organizationId }, 'could not update who follows user activity; the organization stays followed until a webhook changes');
      });
    }
    return enabled;
  }
}
