import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

export type ModelStatus = 'untrained' | 'active' | 'retraining' | 'failed';
export type ModelAlgorithm = 'gbdt' | 'logistic';
/** What a model predicts (CONTRACT.md, Models): the target event, no event at all, or a property's sum. */
export type ModelKind = 'event' | 'inactivity' | 'value';

@Entity({ name: 'models' })
export class Model {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ name: 'organization_id', type: 'text' })
  organizationId!: string;

  /** Used as `model` in predictions; unique per organization. */
  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  kind!: ModelKind;

  /** Null for an `inactivity` model (any event counts). */
  @Column({ name: 'target_event', type: 'text', nullable: true })
  targetEvent!: string | null;

  /** `inactivity`: the users it predicts for were active within this many days. */
  @Column({ name: 'active_days', type: 'integer', nullable: true })
  activeDays!: number | null;

  /** `value`: the numeric property of the target event whose sum is predicted. */
  @Column({ name: 'value_property', type: 'text', nullable: true })
  valueProperty!: string | null;

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
