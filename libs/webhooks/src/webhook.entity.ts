import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { SubscribableEventType } from '@foresight/platform';

/** A subscription: an organization's endpoint and the event types it receives. */
@Entity({ name: 'webhooks' })
export class Webhook {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ name: 'organization_id', type: 'text' })
  organizationId!: string;

  @Column({ type: 'text' })
  url!: string;

  @Column({ type: 'text', array: true })
  events!: SubscribableEventType[];

  /** The signing secret, encrypted at rest (Encryptor, context `webhook:<id>`); shown once at creation. */
  @Column({ name: 'secret_encrypted', type: 'text', select: false })
  secretEncrypted!: string;

  @Column({ type: 'boolean' })
  enabled!: boolean;

  @Column({ name: 'disabled_reason', type: 'text', nullable: true })
  disabledReason!: string | null;

  /** Set by the first failed attempt after a success, cleared by the next success. */
  @Column({ name: 'failing_since', type: 'timestamptz', nullable: true })
  failingSince!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
