import type { MigrationInterface, QueryRunner } from 'typeorm';

export class DashboardAdmin1764610000000 implements MigrationInterface {
  name = 'DashboardAdmin1764610000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // When a token last authenticated, to the minute (the dashboard's token list); null: never used since recorded.
    await queryRunner.query(`ALTER TABLE api_tokens ADD COLUMN last_used_at timestamptz`);
    // The live events feed reads the organization's events in arrival order, newest first.
    await queryRunner.query(`CREATE INDEX events_received_idx ON events (organization_id, received_at, message_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX events_received_idx`);
    await queryRunner.query(`ALTER TABLE api_tokens DROP COLUMN last_used_at`);
  }
}
