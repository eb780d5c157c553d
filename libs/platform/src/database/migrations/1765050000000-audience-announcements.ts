import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AudienceAnnouncements1765050000000 implements MigrationInterface {
  name = 'AudienceAnnouncements1765050000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // When a computation's entries and departures were all published. The next computation forgets
    // the departures, so it publishes any computation not marked yet before it does. Computations
    // made before count as announced.
    await queryRunner.query(`ALTER TABLE audience_sizes ADD COLUMN announced_at timestamptz`);
    await queryRunner.query(`UPDATE audience_sizes SET announced_at = computed_at`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE audience_sizes DROP COLUMN announced_at`);
  }
}
