import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { DomainEvent, DomainEventType } from '@foresight/platform';

/**
 * pending: queued or waiting for a retry; succeeded: a 2xx arrived; failed: every scheduled attempt
 * failed; abandoned: not attempted further because the webhook was disabled.
 */
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'abandoned';

/** The body receivers get: the event without its organization id, the receiver's own. */
export type WebhookPayload = Omit<DomainEvent, 'organizationId'>;

/** One event for one webhook, with the outcome of its latest attempt. */
@Entity({ name: 'webhook_deliveries' })
export class WebhookDelivery {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ name: 'webhook_id', type: 'text' })
  webhookId!: string;

  @Column({ name: 'organization_id', type: 'text' })
  organizationId!: string;

  @Column({ name: 'event_id', type: 'text' })
  eventId!: string;

  @Column({ name: 'event_type', type: 'text' })
  eventType!: DomainEventType;

  /** The user an event is about (prediction.updated): personal data, found by erasure through this column. */
  @Column({ name: 'user_id', type: 'text', nullable: true })
  userId!: string | null;

  @Column({ type: 'jsonb' })
  payload!: WebhookPayload;

  @Column({ type: 'text' })
  status!: DeliveryStatus;

  @Column({ type: 'integer' })
  attempts!: number;

  @Column({ name: 'last_response_code', type: 'integer', nullable: true })
  lastResponseCode!: number | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;

  @Column({ name: 'last_latency_ms', type: 'integer', nullable: true })
  lastLatencyMs!: number | null;

  @Column({ name: 'next_attempt_at', type: 'timestamptz', nullable: true })
  nextAttemptAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  @Column({ name: 'delivered_at', type: 'timestamptz', nullable: true })
  deliveredAt!: Date | null;
}
