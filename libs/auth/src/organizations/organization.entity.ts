import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { Region } from '@foresight/platform';

@Entity({ name: 'organizations' })
export class Organization {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  region!: Region;

  /** Sustained requests per minute per token. */
  @Column({ name: 'rate_limit_per_minute', type: 'integer' })
  rateLimitPerMinute!: number;

  /** Most requests one token may make within any minute, bursts included. */
  @Column({ name: 'burst_per_minute', type: 'integer' })
  burstPerMinute!: number;

  /** User and anonymous ids are stored as a keyed HMAC; callers keep sending raw ids (UserIds hashes them). */
  @Column({ name: 'hash_user_ids', type: 'boolean' })
  hashUserIds!: boolean;

  /** Events and predictions older than this many days are deleted by the daily retention job. */
  @Column({ name: 'retention_days', type: 'integer' })
  retentionDays!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
