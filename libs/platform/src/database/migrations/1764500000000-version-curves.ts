import type { MigrationInterface, QueryRunner } from 'typeorm';

export class VersionCurves1764500000000 implements MigrationInterface {
  name = 'VersionCurves1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Reliability bins, score histogram by outcome and threshold curves of the validation set, for the
    // dashboard; null for versions trained before they were stored.
    await queryRunner.query(`ALTER TABLE model_versions ADD COLUMN curves jsonb`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE model_versions DROP COLUMN curves`);
  }
}
