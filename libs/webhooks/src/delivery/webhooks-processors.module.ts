import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { QUEUES } from '@foresight/platform';
import { Webhook } from '../webhook.entity';
import { WebhookDelivery } from '../webhook-delivery.entity';
import { WebhookDeliveriesPersonalData } from '../privacy/webhook-deliveries-personal-data';
import { addressPolicyProvider } from '../webhooks.module';
import { DeliveryJobs } from './delivery-jobs';
import { DeliveryService } from './delivery.service';
import { DomainEventsProcessor } from './domain-events.processor';
import { EndpointSlots } from './endpoint-slots';
import { FanOutService } from './fan-out.service';
import { WebhookDeliveryProcessor } from './webhook-delivery.processor';
import { WebhookSender } from './webhook-sender';

/** The webhooks lib's background work, composed into the worker: fan-out of domain events, then delivery. */
@Module({
  imports: [
    TypeOrmModule.forFeature([Webhook, WebhookDelivery]),
    BullModule.registerQueue({ name: QUEUES.domainEvents }, { name: QUEUES.webhooks }),
  ],
  providers: [
    addressPolicyProvider,
    DeliveryJobs,
    DeliveryService,
    EndpointSlots,
    FanOutService,
    WebhookSender,
    DomainEventsProcessor,
    WebhookDeliveryProcessor,
    // The privacy sweep runs in the worker: it must find this store there too.
    WebhookDeliveriesPersonalData,
  ],
})
export class WebhooksProcessorsModule {}
