import type { MigrationInterface, QueryRunner } from 'typeorm';

export class PredictionKinds1764950000000 implements MigrationInterface {
  name = 'PredictionKinds1764950000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // What a model predicts: `event` (as every model did before), `inactivity` (no target event), `value` (a property's sum).
    await queryRunner.query(`ALTER TABLE models ADD COLUMN kind text NOT NULL DEFAULT 'event' CHECK (kind IN ('event', 'inactivity', 'value'))`);
    await queryRunner.query(`ALTER TABLE models ADD COLUMN active_days integer`);
    await queryRunner.query(`ALTER TABLE models ADD COLUMN value_property text`);
    await queryRunner.query(`ALTER TABLE models ALTER COLUMN target_event DROP NOT NULL`);
    await queryRunner.query(`
      ALTER TABLE models ADD CONSTRAINT models_kind_fields CHECK (
        (kind = 'event' AND target_event IS NOT NULL AND active_days IS NULL AND value_property IS NULL)
        OR (kind = 'inactivity' AND target_event IS NULL AND active_days IS NOT NULL AND value_property IS NULL)
        OR (kind = 'value' AND target_event IS NOT NULL AND active_days IS NULL AND value_property IS NOT NULL))`);
    // What serving needs of a version beyond its graph: the inactive users' rate, the value model's residuals. Null: an `event` version.
    await queryRunner.query(`ALTER TABLE model_versions ADD COLUMN target jsonb`);
    // A `value` model's logged prediction: the expected sum and its p10-p90 interval. Null for the other kinds.
    await queryRunner.query(`ALTER TABLE predictions ADD COLUMN value double precision, ADD COLUMN value_p10 double precision, ADD COLUMN value_p90 double precision`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE predictions DROP COLUMN value, DROP COLUMN value_p10, DROP COLUMN value_p90`);
    await queryRunner.query(`ALTER TABLE model_versions DROP COLUMN target`);
    await queryRunner.query(`DELETE FROM models WHERE kind <> 'event'`);
    await queryRunner.query(`ALTER TABLE models DROP CONSTRAINT models_kind_fields`);
    await queryRunner.query(`ALTER TABLE models ALTER COLUMN target_event SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE models DROP COLUMN value_property`);
    await queryRunner.query(`ALTER TABLE models DROP COLUMN active_days`);
    await queryRunner.query(`ALTER TABLE models DROP COLUMN kind`);
  }
}
