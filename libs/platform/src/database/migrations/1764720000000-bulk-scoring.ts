import type { MigrationInterface, QueryRunner } from 'typeorm';

export class BulkScoring1764720000000 implements MigrationInterface {
  name = 'BulkScoring1764720000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // The bulk scoring run a logged prediction came from; null for predictions served by the API
    // (monitoring's latency, throughput and drift read those only).
    await queryRunner.query(`ALTER TABLE predictions ADD COLUMN scoring_run text`);
    // A run scores users in user id order; each chunk's rows and the run's checkpoint (checkpoint_user_id)
    // commit in one transaction, so a resumed run continues after it and scores no user twice.
    await queryRunner.query(`
      CREATE TABLE scoring_runs (
        id text PRIMARY KEY,
        organization_id text NOT NULL,
        model_ids text[] NOT NULL,
        trigger text NOT NULL,
        state text NOT NULL DEFAULT 'queued',
        checkpoint_user_id text,
        scored integer NOT NULL DEFAULT 0,
        total integer,
        changed integer NOT NULL DEFAULT 0,
        error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz,
        finished_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX scoring_runs_organization_idx ON scoring_runs (organization_id, created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE scoring_runs`);
    await queryRunner.query(`ALTER TABLE predictions DROP COLUMN scoring_run`);
  }
}
