import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Monitoring1764300000000 implements MigrationInterface {
  name = 'Monitoring1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // What the user actually did within the horizon of a logged prediction, once it matured.
    await queryRunner.query(`
      CREATE TABLE prediction_outcomes (
        prediction_id   bigint PRIMARY KEY,
        organization_id text NOT NULL,
        model_id        text NOT NULL,
        user_id         text NOT NULL,
        predicted_at    timestamptz NOT NULL,
        predicted_positive boolean NOT NULL,
        actual_positive    boolean NOT NULL,
        evaluated_at    timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX prediction_outcomes_model_idx ON prediction_outcomes (model_id, predicted_at)`);
    await queryRunner.query(`CREATE INDEX prediction_outcomes_user_idx ON prediction_outcomes (organization_id, user_id)`);
    // The monitoring time series: one snapshot per serving model per monitoring run.
    await queryRunner.query(`
      CREATE TABLE model_snapshots (
        id                  bigserial PRIMARY KEY,
        organization_id     text NOT NULL,
        model_id            text NOT NULL,
        version_id          text NOT NULL,
        version             integer NOT NULL,
        computed_at         timestamptz NOT NULL,
        accuracy            double precision,
        accuracy_source     text NOT NULL CHECK (accuracy_source IN ('live', 'validation')),
        matured_predictions integer NOT NULL,
        latency_p95_ms      double precision,
        throughput_per_min  double precision NOT NULL,
        predictions_24h     integer NOT NULL,
        mean_confidence_24h double precision,
        drift_delta         double precision NOT NULL,
        psi                 double precision,
        drift_status        text NOT NULL CHECK (drift_status IN ('none', 'low', 'moderate', 'high'))
      )`);
    await queryRunner.query(`CREATE INDEX model_snapshots_model_idx ON model_snapshots (organization_id, model_id, computed_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE model_snapshots`);
    await queryRunner.query(`DROP TABLE prediction_outcomes`);
  }
}
