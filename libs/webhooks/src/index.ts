export { Webhook } from './webhook.entity';
export { type CreateWebhook, createWebhookSchema, type ListDeliveries, listDeliveriesSchema } from './webhook.schema';
export { type DeliveryStatus, WebhookDelivery } from './webhook-delivery.entity';
export { signatureHeader } from './webhook-signature';
export { WebhooksModule } from './webhooks.module';
export { type CreatedWebhook, WebhooksService } from './webhooks.service';
export { WebhooksProcessorsModule } from './webhooks-processors.module';
