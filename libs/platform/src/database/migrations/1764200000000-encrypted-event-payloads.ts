import type { MigrationInterface, QueryRunner } from 'typeorm';

export class EncryptedEventPayloads1764200000000 implements MigrationInterface {
  name = 'EncryptedEventPayloads1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Free-form properties and context become AES-256-GCM ciphertext (text `v1:<keyId>:<base64>`);
    // encryption_key_id says which key sealed the row, so rotation finds the rows still under an old key.
    // Rows written before this migration keep their JSON as plain text with a NULL key id until
    // `cli keys rotate` seals them.
    await queryRunner.query(`ALTER TABLE events ALTER COLUMN properties TYPE text USING properties::text`);
    await queryRunner.query(`ALTER TABLE events ALTER COLUMN context TYPE text USING context::text`);
    await queryRunner.query(`ALTER TABLE events ADD COLUMN encryption_key_id text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // SQL cannot decrypt: going back would destroy the sealed payloads, so refuse while any exist.
    const sealed = (await queryRunner.query(`SELECT 1 FROM events WHERE encryption_key_id IS NOT NULL LIMIT 1`)) as unknown[];
    if (sealed.length > 0) throw new Error('events hold encrypted properties; they cannot be turned back into jsonb by a migration');
    await queryRunner.query(`ALTER TABLE events DROP COLUMN encryption_key_id`);
    await queryRunner.query(`ALTER TABLE events ALTER COLUMN context TYPE jsonb USING context::jsonb`);
    await queryRunner.query(`ALTER TABLE events ALTER COLUMN properties TYPE jsonb USING properties::jsonb`);
  }
}
