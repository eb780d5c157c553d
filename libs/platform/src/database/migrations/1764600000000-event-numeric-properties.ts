import type { MigrationInterface, QueryRunner } from 'typeorm';

export class EventNumericProperties1764600000000 implements MigrationInterface {
  name = 'EventNumericProperties1764600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // The top-level numeric custom properties of an event, in clear beside the sealed properties, so
    // training reads them without decrypting every event. In the event's own row: erasure, export and
    // retention remove them with it. Events stored before stay null (their numbers stay sealed only).
    await queryRunner.query(`ALTER TABLE events ADD COLUMN numeric_properties jsonb`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE events DROP COLUMN numeric_properties`);
  }
}
