import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { type PersonalDataStore, PersonalDataStoreProvider } from '@foresight/platform';
import { WebhookDelivery } from '../webhook-delivery.entity';

/**
 * Deliveries of events about one user (prediction.updated): their payload names the user. A delivery
 * job still queued for an erased row only carries ids and finds nothing to send.
 */
@Injectable()
@PersonalDataStoreProvider()
export class WebhookDeliveriesPersonalDataService implements PersonalDataStore {
  readonly name = 'webhookDeliveries';
  readonly userIdColumns = [{ table: 'webhook_deliveries', column: 'user_id' }];

  constructor(@InjectRepository(WebhookDelivery) private readonly deliveries: Repository<WebhookDelivery>) {}

  async export(organizationId: string, userId: string): Promise<unknown[]> {
    const rows = await this.deliveries.find({ where: { organizationId, userId }, order: { createdAt: 'ASC' } });
    return rows.map((row) => ({
      id: row.id,
      webhookId: row.webhookId,
      payload: row.payload,
      status: row.status,
      createdAt: row.createdAt.toISOString(),
      deliveredAt: row.deliveredAt?.toISOString() ?? null,
    }));
  }

  async erase(organizationId: string, userId: string): Promise<number> {
    return (await this.deliveries.delete({ organizationId, userId })).affected ?? 0;
  }

  remaining(organizationId: string, userId: string): Promise<number> {
    return this.deliveries.countBy({ organizationId, userId });
  }
}
