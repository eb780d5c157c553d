import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { DomainEventsModule, QUEUES } from '@foresight/platform';
import { DeliveryService } from './delivery/delivery.service';
import { DomainEventsProcessor } from './delivery/domain-events.processor';
import { EndpointSlotsService } from './delivery/endpoint-slots.service';
import { FanOutService } from './delivery/fan-out.service';
import { WebhookDeliveryProcessor } from './delivery/webhook-delivery.processor';
import { WebhookSenderService } from './delivery/webhook-sender.service';
import { WebhooksModule } from './webhooks.module';

/** The webhooks lib's background work over WebhooksModule's services, composed into the worker: fan-out of domain events, then delivery. */
@Module({
  imports: [WebhooksModule, DomainEventsModule, BullModule.registerQueue({ name: QUEUES.domainEvents }, { name: QUEUES.webhooks })],
  providers: [DeliveryService, EndpointSlotsService, FanOutService, WebhookSenderService, DomainEventsProcessor, WebhookDeliveryProcessor],
})
export class WebhooksProcessorsModule {}
