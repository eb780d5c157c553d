import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Models1763900000000 implements MigrationInterface {
  name = 'Models1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE models (
        id                  text PRIMARY KEY,
        organization_id     text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        name                text NOT NULL,
        target_event        text NOT NULL,
        horizon_days        integer NOT NULL CHECK (horizon_days BETWEEN 1 AND 365),
        algorithm           text NOT NULL CHECK (algorithm IN ('gbdt', 'logistic')),
        labels              text[] NOT NULL CHECK (cardinality(labels) = 2),
        schedule            text,
        status              text NOT NULL DEFAULT 'untrained' CHECK (status IN ('untrained', 'active', 'retraining', 'failed')),
        serving_version_id  text,
        last_error          text,
        retrain_started_at  timestamptz,
        last_retrained_at   timestamptz,
        created_at          timestamptz NOT NULL DEFAULT now(),
        updated_at          timestamptz NOT NULL DEFAULT now(),
        UNIQUE (organization_id, name)
      )`);
    await queryRunner.query(`
      CREATE TABLE model_versions (
        id                    text PRIMARY KEY,
        model_id              text NOT NULL REFERENCES models (id) ON DELETE CASCADE,
        organization_id       text NOT NULL,
        version               integer NOT NULL,
        algorithm             text NOT NULL,
        onnx                  bytea NOT NULL,
        manifest              jsonb NOT NULL,
        metrics               jsonb NOT NULL,
        feature_importance    jsonb NOT NULL,
        confidence_baseline   jsonb NOT NULL,
        window_start          timestamptz NOT NULL,
        window_end            timestamptz NOT NULL,
        train_rows            integer NOT NULL,
        validation_rows       integer NOT NULL,
        state                 text NOT NULL CHECK (state IN ('serving', 'retired', 'rejected')),
        rejection_reason      text,
        created_at            timestamptz NOT NULL DEFAULT now(),
        UNIQUE (model_id, version)
      )`);
    await queryRunner.query(
      `ALTER TABLE models ADD CONSTRAINT models_serving_version_fk FOREIGN KEY (serving_version_id) REFERENCES model_versions (id)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE models DROP CONSTRAINT models_serving_version_fk`);
    await queryRunner.query(`DROP TABLE model_versions`);
    await queryRunner.query(`DROP TABLE models`);
  }
}
