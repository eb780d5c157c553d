import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

export type ModelStatus = 'untrained' | 'active' | 'retraining' | 'failed';
export type ModelAlgorithm = 'gbdt' | 'logistic';

@Entity({ name: 'models' })
export class Model {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ name: 'organization_id', type: 'text' })
  organizationId!: string;

  /** Used as `model` in predictions; unique per organization. */
  @Column({ type: 'text' })
  name!: string;

  @Column({ name: 'target_event', type: 'text' })
  targetEvent!: string;

  @Column({ name: 'horizon_days', type: 'integer' })
  horizonDays!: number;

  @Column({ type: 'text' })
  algorithm!: ModelAlgorithm;

  /** [negative, positive] label names. */
  @Column({ type: 'text', array: true })
  labels!: string[];

  /** Cron expression for scheduled retraining, or null. */
  @Column({ type: 'text', nullable: true })
  schedule!: string | null;

  @Column({ type: 'text' })
  status!: ModelStatus;

  @Column({ name: 'serving_version_id', type: 'text', nullable: true })
  servingVersionId!: string | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;

  @Column({ name: 'retrain_started_at', type: 'timestamptz', nullable: true })
  retrainStartedAt!: Date | null;

  @Column({ name: 'last_retrained_at', type: 'timestamptz', nullable: true })
  lastRetrainedAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
