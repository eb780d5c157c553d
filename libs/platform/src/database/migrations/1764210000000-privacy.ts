import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Privacy1764210000000 implements MigrationInterface {
  name = 'Privacy1764210000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // hash_user_ids: user and anonymous ids are stored as a keyed HMAC (pseudonymization).
    // retention_days: events and predictions older than this are deleted by the daily retention job.
    await queryRunner.query(`
      ALTER TABLE organizations
        ADD COLUMN hash_user_ids  boolean NOT NULL DEFAULT false,
        ADD COLUMN retention_days integer NOT NULL DEFAULT 395 CHECK (retention_days BETWEEN 1 AND 3650)`);
    // One row per DELETE /v1/users. The user is named only by a keyed hash, never in clear.
    await queryRunner.query(`
      CREATE TABLE erasures (
        id               text PRIMARY KEY,
        organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        user_hash        text NOT NULL,
        status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'confirmed')),
        requested_at     timestamptz NOT NULL DEFAULT now(),
        confirmed_at     timestamptz,
        attempts         integer NOT NULL DEFAULT 0,
        erased           jsonb NOT NULL DEFAULT '{}'
      )`);
    await queryRunner.query(`CREATE INDEX erasures_organization_idx ON erasures (organization_id, requested_at DESC, id)`);
    // Ids whose future events are dropped at ingestion (DELETE /v1/users?suppress=true), by keyed hash:
    // the user's id and the anonymous ids linked to it (id_hash), each under the user it belongs to (user_hash).
    await queryRunner.query(`
      CREATE TABLE suppressed_users (
        organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        id_hash          text NOT NULL,
        user_hash        text NOT NULL,
        suppressed_at    timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, id_hash)
      )`);
    await queryRunner.query(`CREATE INDEX suppressed_users_user_idx ON suppressed_users (organization_id, user_hash)`);
    // Admin actions: who (token id) did what to which target, and when. Targets that are users are keyed hashes.
    await queryRunner.query(`
      CREATE TABLE audit_log (
        id               text PRIMARY KEY,
        organization_id  text NOT NULL,
        actor_token_id   text,
        action           text NOT NULL,
        target           text,
        created_at       timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX audit_log_organization_idx ON audit_log (organization_id, created_at DESC, id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE audit_log`);
    await queryRunner.query(`DROP TABLE suppressed_users`);
    await queryRunner.query(`DROP TABLE erasures`);
    await queryRunner.query(`ALTER TABLE organizations DROP COLUMN retention_days, DROP COLUMN hash_user_ids`);
  }
}
