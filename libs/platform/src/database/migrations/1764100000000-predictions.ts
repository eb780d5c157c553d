import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Predictions1764100000000 implements MigrationInterface {
  name = 'Predictions1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // The prediction log: one row per served prediction, the largest table after events. Partitioned
    // by month on predicted_at (retention drops whole months); ids from one sequence give the export
    // a total order (predicted_at, id) for cursors.
    await queryRunner.query(`CREATE SEQUENCE predictions_id_seq AS bigint`);
    await queryRunner.query(`
      CREATE TABLE predictions (
        id              bigint NOT NULL DEFAULT nextval('predictions_id_seq'),
        organization_id text NOT NULL,
        user_id         text NOT NULL,
        model_id        text NOT NULL,
        model_name      text NOT NULL,
        version_id      text NOT NULL,
        version         integer NOT NULL,
        label           text NOT NULL,
        positive        boolean NOT NULL,
        confidence      double precision NOT NULL CHECK (confidence BETWEEN 0.5 AND 1),
        inference_ms    real NOT NULL,
        predicted_at    timestamptz NOT NULL
      ) PARTITION BY RANGE (predicted_at)`);
    await queryRunner.query(`ALTER SEQUENCE predictions_id_seq OWNED BY predictions.id`);
    await queryRunner.query(`CREATE TABLE predictions_default PARTITION OF predictions DEFAULT`);
    // Export order, with and without the model filter; per-user lookups for privacy; per-model windows for monitoring.
    await queryRunner.query(`CREATE INDEX predictions_export_idx ON predictions (organization_id, predicted_at, id)`);
    await queryRunner.query(`CREATE INDEX predictions_model_export_idx ON predictions (organization_id, model_name, predicted_at, id)`);
    await queryRunner.query(`CREATE INDEX predictions_user_idx ON predictions (organization_id, user_id)`);
    await queryRunner.query(`CREATE INDEX predictions_monitor_idx ON predictions (model_id, predicted_at)`);
    // GET /v1/predict?sessionId= finds the session's user.
    await queryRunner.query(`CREATE INDEX events_session_idx ON events (organization_id, session_id) WHERE session_id IS NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX events_session_idx`);
    await queryRunner.query(`DROP TABLE predictions`);
  }
}
