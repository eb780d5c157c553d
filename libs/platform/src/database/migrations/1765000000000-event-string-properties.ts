import type { MigrationInterface, QueryRunner } from 'typeorm';

export class EventStringProperties1765000000000 implements MigrationInterface {
  name = 'EventStringProperties1765000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // The short top-level string custom properties of an event (a plan, a feature, a reason), in clear
    // beside the sealed properties, so training counts their values without decrypting every event. In
    // the event's own row: erasure, export and retention remove them with it. Events stored before stay null.
    await queryRunner.query(`ALTER TABLE events ADD COLUMN string_properties jsonb`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE events DROP COLUMN string_properties`);
  }
}
