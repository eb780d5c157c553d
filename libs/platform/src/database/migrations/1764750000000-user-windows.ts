import type { MigrationInterface, QueryRunner } from 'typeorm';

export class UserWindows1764750000000 implements MigrationInterface {
  name = 'UserWindows1764750000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // A user's feature window as one row, kept by bulk scoring for serving to read instead of the
    // user's events. When one may be served, and what retires one: libs/events/src/users/kept-windows/.
    await queryRunner.query(`
      CREATE TABLE user_windows (
        organization_id text NOT NULL,
        user_id         text NOT NULL,
        revision        bigint NOT NULL,
        window_from     timestamptz NOT NULL,
        taken_at        timestamptz NOT NULL,
        first_seen      float8 NOT NULL,
        last_seen       float8 NOT NULL,
        events          text NOT NULL,
        PRIMARY KEY (organization_id, user_id),
        FOREIGN KEY (organization_id, user_id) REFERENCES user_activity (organization_id, user_id) ON DELETE CASCADE
      )`);
    // Text as the worker wrote it (JSON.stringify): no JSON parse on write. lz4 where the server was
    // built with it (Debian's PostgreSQL is; otherwise the step is skipped): it compresses and
    // decompresses several times faster than the default pglz.
    await queryRunner.query(`
      DO $$ BEGIN
        ALTER TABLE user_windows ALTER COLUMN events SET COMPRESSION lz4;
      EXCEPTION WHEN feature_not_supported THEN NULL;
      END $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE user_windows`);
  }
}
