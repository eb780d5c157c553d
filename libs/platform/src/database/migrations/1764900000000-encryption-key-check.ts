import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One value sealed under the encryption key, opened by every process at start-up: a process started
 * with a wrong ENCRYPTION_KEY refuses to run instead of failing on every read later or writing rows
 * under a key the rest of the data was never sealed with. One row at most (the `singleton` key).
 */
export class EncryptionKeyCheck1764900000000 implements MigrationInterface {
  name = 'EncryptionKeyCheck1764900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE encryption_key_check (
        singleton   boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        sealed      text NOT NULL,
        updated_at  timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE encryption_key_check`);
  }
}
