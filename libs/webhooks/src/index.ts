export { WebhooksModule } from './webhooks.module';
export { WebhooksProcessorsModule } from './webhooks-processors.module';
export { WebhooksService, type CreatedWebhook } from './webhooks.service';
export { Webhook } from './webhook.entity';
export { WebhookDelivery, type DeliveryStatus } from './webhook-delivery.entity';
export { signatureHeader } from './webhook-signature';
export { createWebhookSchema, listDeliveriesSchema, type CreateWebhook, type ListDeliveries } from './webhook.schema';
