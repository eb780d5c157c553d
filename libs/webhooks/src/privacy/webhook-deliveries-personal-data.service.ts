import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { type PersonalDataStore, PersonalDataStoreProvider, SqlExecutor } from '@foresight/platform';
import { WebhookDelivery } from '../webhook-delivery.entity';
import { REMOVE_USER_FROM_BATCHES, USER_BATCH_DELIVERIES, USER_BATCH_DELIVERY_ROWS } from './webhook-deliveries-personal-data.sql';

/**
 * Deliveries of events about one user (prediction.updated): their payload names the user. A delivery
 * job still queued for an erased row only carries ids and finds nothing to send. Deliveries of an
 * audience's batch (audience.entered / audience.left) name many users: the user is taken out of them.
 */
@Injectable()
@PersonalDataStoreProvider()
export class WebhookDeliveriesPersonalDataService implements PersonalDataStore {
  readonly name = 'webhookDeliveries';
  readonly userIdColumns = [{ table: 'webhook_deliveries', column: 'user_id' }];

  constructor(
    @InjectRepository(WebhookDelivery) private readonly deliveries: Repository<WebhookDelivery>,
    private readonly sql: SqlExecutor,
  ) {}

  async export(organizationId: string, userId: string): Promise<unknown[]> {
    const own = (await this.deliveries.find({ where: { organizationId, userId }, order: { createdAt: 'ASC' } })).map((row) => ({
      id: row.id,
      webhookId: row.webhookId,
      payload: row.payload,
      status: row.status,
      createdAt: row.createdAt.toISOString(),
      deliveredAt: row.deliveredAt?.toISOString() ?? null,
    }));
    const batches = (await this.sql.rows(USER_BATCH_DELIVERIES, [organizationId, userId])).map((row) => ({
      id: row.id,
      webhookId: row.webhook_id,
      payload: row.payload,
      status: row.status,
      createdAt: row.created_at.toISOString(),
      deliveredAt: row.delivered_at?.toISOString() ?? null,
    }));
    return [...own, ...batches];
  }

  async erase(organizationId: string, userId: string): Promise<number> {
    const deleted = (await this.deliveries.delete({ organizationId, userId })).affected ?? 0;
    return deleted + (await this.sql.affected(REMOVE_USER_FROM_BATCHES, [organizationId, userId]));
  }

  async remaining(organizationId: string, userId: string): Promise<number> {
    const [{ n }] = await this.sql.rows(USER_BATCH_DELIVERY_ROWS, [organizationId, userId]);
    return (await this.deliveries.countBy({ organizationId, userId })) + Number(n);
  }
}
