import type { MigrationInterface, QueryRunner } from 'typeorm';

export class UserActivity1764400000000 implements MigrationInterface {
  name = 'UserActivity1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // One row per user the organization has stored an event for (their own, or an anonymous one
    // linked to them). `revision` grows whenever something counting for the user's history is
    // stored, so serving can tell "nothing new since" with one primary-key read.
    await queryRunner.query(`
      CREATE TABLE user_activity (
        organization_id text NOT NULL,
        user_id         text NOT NULL,
        revision        bigint NOT NULL DEFAULT 1,
        PRIMARY KEY (organization_id, user_id)
      )`);
    await queryRunner.query(`
      INSERT INTO user_activity (organization_id, user_id)
      SELECT DISTINCT e.organization_id, coalesce(e.user_id, i.user_id)
        FROM events e
        LEFT JOIN identities i ON e.user_id IS NULL AND i.organization_id = e.organization_id AND i.anonymous_id = e.anonymous_id
       WHERE coalesce(e.user_id, i.user_id) IS NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE user_activity`);
  }
}
