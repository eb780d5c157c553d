import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { FeatureManifest } from '@foresight/features';
import type { ValidationCurves } from '../curves/validation-curves';
import type { ConfidenceHistogram, FeatureDirection, ValidationMetrics } from '../training';
import type { ModelAlgorithm } from './model.entity';
import type { VersionTarget } from './version-target';

export type VersionState = 'serving' | 'retired' | 'rejected';

/** One trained version: its ONNX bytes and everything needed to serve, explain and monitor it. */
@Entity({ name: 'model_versions' })
export class ModelVersion {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ name: 'model_id', type: 'text' })
  modelId!: string;

  @Column({ name: 'organization_id', type: 'text' })
  organizationId!: string;

  @Column({ type: 'integer' })
  version!: number;

  @Column({ type: 'text' })
  algorithm!: ModelAlgorithm;

  @Column({ type: 'bytea', select: false })
  onnx!: Buffer;

  @Column({ type: 'jsonb' })
  manifest!: FeatureManifest;

  @Column({ type: 'jsonb' })
  metrics!: ValidationMetrics;

  /** `direction` was added with the dashboard's raises/lowers; versions trained before it have none. */
  @Column({ name: 'feature_importance', type: 'jsonb' })
  featureImportance!: Array<{ feature: string; weight: number; direction?: FeatureDirection }>;

  @Column({ name: 'confidence_baseline', type: 'jsonb' })
  confidenceBaseline!: ConfidenceHistogram;

  /** Null for versions trained before the curves were stored. */
  @Column({ type: 'jsonb', nullable: true })
  curves!: ValidationCurves | null;

  /** `inactivity` and `value` versions' serving figures; null for `event` versions. */
  @Column({ type: 'jsonb', nullable: true })
  target!: VersionTarget | null;

  @Column({ name: 'window_start', type: 'timestamptz' })
  windowStart!: Date;

  @Column({ name: 'window_end', type: 'timestamptz' })
  windowEnd!: Date;

  @Column({ name: 'train_rows', type: 'integer' })
  trainRows!: number;

  @Column({ name: 'validation_rows', type: 'integer' })
  validationRows!: number;

  @Column({ type: 'text' })
  state!: VersionState;

  @Column({ name: 'rejection_reason', type: 'text', nullable: true })
  rejectionReason!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
