import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the worker needs to queue again, from PostgreSQL, the jobs Redis lost (restarted without its
 * data): the erased user's id as the caller sent it, sealed with the Encryptor (bound to the erasure
 * id) as the sweep job carries it, kept only until the sweep confirms; and partial indexes over the
 * few rows still waiting, so the resumers' look every minute stays cheap however large the tables grow.
 */
export class LostJobsResume1764970000000 implements MigrationInterface {
  name = 'LostJobsResume1764970000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE erasures ADD COLUMN user_id_sealed text`);
    await queryRunner.query(`CREATE INDEX erasures_unconfirmed_idx ON erasures (requested_at) WHERE status = 'pending'`);
    await queryRunner.query(`CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX webhook_deliveries_pending_idx`);
    await queryRunner.query(`DROP INDEX erasures_unconfirmed_idx`);
    await queryRunner.query(`ALTER TABLE erasures DROP COLUMN user_id_sealed`);
  }
}
