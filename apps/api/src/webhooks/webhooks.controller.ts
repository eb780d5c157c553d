import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import type { Principal } from '@foresight/auth';
import { DELIVERED_EVENT_TYPES, DOMAIN_EVENT_TYPES } from '@foresight/platform';
import {
  type CreateWebhook,
  createWebhookSchema,
  type ListDeliveries,
  listDeliveriesSchema,
  type Webhook,
  type WebhookDelivery,
  WebhooksService,
} from '@foresight/webhooks';
import { CurrentPrincipal, RequireScope } from '../http/access.decorators';
import { Audited } from '../http/audit.interceptor';
import { openApiSchema, ZodPipe } from '../http/zod';

const webhookSchema = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.enum(DOMAIN_EVENT_TYPES)),
  enabled: z.boolean(),
  disabledReason: z.string().nullable(),
  failingSince: z.string().nullable().describe('first failed attempt since the last success'),
  createdAt: z.string(),
});

const deliverySchema = z.object({
  id: z.string().describe('also sent as the Foresight-Delivery-Id header'),
  eventId: z.string(),
  eventType: z.enum(DELIVERED_EVENT_TYPES),
  status: z.enum(['pending', 'succeeded', 'failed', 'abandoned']),
  attempts: z.number(),
  lastResponseCode: z.number().nullable(),
  lastError: z.string().nullable(),
  lastLatencyMs: z.number().nullable(),
  nextAttemptAt: z.string().nullable(),
  createdAt: z.string(),
  deliveredAt: z.string().nullable(),
});

type WebhookView = z.infer<typeof webhookSchema>;
type DeliveryView = z.infer<typeof deliverySchema>;

/** Webhook subscriptions of the caller's organization and their delivery log (`manage`: admin tokens, editors and admins). */
@ApiTags('webhooks')
@ApiBearerAuth()
@RequireScope('manage')
@Controller('webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @HttpCode(200)
  @Audited('webhook.create', { resultField: 'id' })
  @ApiOperation({ summary: 'Subscribe an endpoint; the signing secret is in the response once and never again' })
  @ApiBody({ schema: openApiSchema(createWebhookSchema) })
  @ApiOkResponse({ schema: openApiSchema(webhookSchema.extend({ secret: z.string() })) })
  async create(@CurrentPrincipal() principal: Principal, @Body(new ZodPipe(createWebhookSchema)) body: CreateWebhook): Promise<WebhookView & { secret: string }> {
    const created = await this.webhooks.create(principal.organizationId, body);
    return { ...webhookView(created.webhook), secret: created.secret };
  }

  @Get()
  @ApiOperation({ summary: "The organization's webhooks (never their secrets)" })
  @ApiOkResponse({ schema: openApiSchema(z.array(webhookSchema)) })
  async list(@CurrentPrincipal() principal: Principal): Promise<WebhookView[]> {
    return (await this.webhooks.list(principal.organizationId)).map(webhookView);
  }

  @Delete(':webhookId')
  @Audited('webhook.delete', { param: 'webhookId' })
  @ApiOperation({ summary: 'Unsubscribe; its delivery log goes with it and queued deliveries stop' })
  @ApiOkResponse({ schema: openApiSchema(webhookSchema) })
  async delete(@CurrentPrincipal() principal: Principal, @Param('webhookId') webhookId: string): Promise<WebhookView> {
    return webhookView(await this.webhooks.delete(principal.organizationId, webhookId));
  }

  @Get(':webhookId/deliveries')
  @ApiOperation({ summary: 'Latest deliveries first, with the outcome of their last attempt' })
  @ApiOkResponse({ schema: openApiSchema(z.array(deliverySchema)) })
  async deliveries(
    @CurrentPrincipal() principal: Principal,
    @Param('webhookId') webhookId: string,
    @Query(new ZodPipe(listDeliveriesSchema)) query: ListDeliveries,
  ): Promise<DeliveryView[]> {
    return (await this.webhooks.listDeliveries(principal.organizationId, webhookId, query)).map(deliveryView);
  }

  @Post(':webhookId/test')
  @HttpCode(200)
  @ApiOperation({ summary: 'Send a signed webhook.test event to this endpoint now (one attempt; retry it like any delivery)' })
  @ApiOkResponse({ schema: openApiSchema(deliverySchema) })
  async test(@CurrentPrincipal() principal: Principal, @Param('webhookId') webhookId: string): Promise<DeliveryView> {
    return deliveryView(await this.webhooks.sendTest(principal.organizationId, webhookId));
  }

  @Post(':webhookId/deliveries/:deliveryId/retry')
  @HttpCode(200)
  @ApiOperation({ summary: 'Attempt a failed or abandoned delivery once more, now' })
  @ApiOkResponse({ schema: openApiSchema(deliverySchema) })
  async retry(
    @CurrentPrincipal() principal: Principal,
    @Param('webhookId') webhookId: string,
    @Param('deliveryId') deliveryId: string,
  ): Promise<DeliveryView> {
    return deliveryView(await this.webhooks.retryDelivery(principal.organizationId, webhookId, deliveryId));
  }
}

function webhookView(webhook: Webhook): WebhookView {
  return {
    id: webhook.id,
    url: webhook.url,
    events: webhook.events,
    enabled: webhook.enabled,
    disabledReason: webhook.disabledReason,
    failingSince: webhook.failingSince?.toISOString() ?? null,
    createdAt: webhook.createdAt.toISOString(),
  };
}

function deliveryView(delivery: WebhookDelivery): DeliveryView {
  return {
    id: delivery.id,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    status: delivery.status,
    attempts: delivery.attempts,
    lastResponseCode: delivery.lastResponseCode,
    lastError: delivery.lastError,
    lastLatencyMs: delivery.lastLatencyMs,
    nextAttemptAt: delivery.nextAttemptAt?.toISOString() ?? null,
    createdAt: delivery.createdAt.toISOString(),
    deliveredAt: delivery.deliveredAt?.toISOString() ?? null,
  };
}
