import { BullModule } from '@nestjs/bullmq';
import { Module, type Provider } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, type AppConfig, QUEUES, UserActivityModule } from '@foresight/platform';
import { AddressPolicy } from './address-policy';
import { DeliveryJobsService } from './delivery/delivery-jobs.service';
import { WebhookDeliveriesPersonalDataService } from './privacy/webhook-deliveries-personal-data.service';
import { Webhook } from './webhook.entity';
import { WebhookDelivery } from './webhook-delivery.entity';
import { WebhooksService } from './webhooks.service';

/** The address policy of this deployment (WEBHOOK_ALLOWED_NETWORKS), for the API's checks and the worker's deliveries. */
const addressPolicyProvider: Provider = {
  provide: AddressPolicy,
  inject: [APP_CONFIG],
  useFactory: (config: AppConfig) => new AddressPolicy(config.webhooks.allowedNetworks),
};

/** Subscriptions, the delivery log and its personal data, for the API and the worker's deliveries. */
@Module({
  imports: [TypeOrmModule.forFeature([Webhook, WebhookDelivery]), BullModule.registerQueue({ name: QUEUES.webhooks }), UserActivityModule],
  providers: [WebhooksService, DeliveryJobsService, addressPolicyProvider, WebhookDeliveriesPersonalDataService],
  exports: [WebhooksService, DeliveryJobsService, AddressPolicy, TypeOrmModule],
})
export class WebhooksModule {}
