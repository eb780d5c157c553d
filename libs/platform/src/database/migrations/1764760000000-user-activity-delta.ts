import type { MigrationInterface, QueryRunner } from 'typeorm';

export class UserActivityDelta1764760000000 implements MigrationInterface {
  name = 'UserActivityDelta1764760000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // A kept window extended by the events stored since it was kept, instead of retired by each new
    // one: the rule and the invariant are in libs/events/src/users/kept-windows/.
    await queryRunner.query(`
      ALTER TABLE user_activity
        ADD COLUMN delta_base  bigint      NOT NULL DEFAULT 0,
        ADD COLUMN delta_count bigint      NOT NULL DEFAULT 0,
        ADD COLUMN delta_from  timestamptz NOT NULL DEFAULT 'infinity'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE user_activity DROP COLUMN delta_base, DROP COLUMN delta_count, DROP COLUMN delta_from`);
  }
}
