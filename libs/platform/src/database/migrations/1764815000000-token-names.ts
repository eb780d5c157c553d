import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A token's optional name, given at creation, so people can tell their tokens apart ("iOS app", "nightly export"). */
export class TokenNames1764815000000 implements MigrationInterface {
  name = 'TokenNames1764815000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE api_tokens ADD COLUMN name text CHECK (char_length(name) BETWEEN 1 AND 100)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE api_tokens DROP COLUMN name`);
  }
}
