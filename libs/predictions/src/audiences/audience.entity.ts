import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A model, one of its labels and a rule (exactly one of minConfidence and topPercent is set). */
@Entity({ name: 'audiences' })
export class Audience {
  @PrimaryColumn({ name: 'organization_id', type: 'text' })
  organizationId!: string;

  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ name: 'model_id', type: 'text' })
  modelId!: string;

  @Column({ type: 'text' })
  label!: string;

  @Column({ name: 'min_confidence', type: 'double precision', nullable: true })
  minConfidence!: number | null;

  @Column({ name: 'top_percent', type: 'double precision', nullable: true })
  topPercent!: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
