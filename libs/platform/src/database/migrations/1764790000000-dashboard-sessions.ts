import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Single sign-on for the dashboard: server-side sessions of people, and the person who acted in the
 * audit log. Keys lead with organization_id like every organization-owned table (OrganizationKeys1764780000000);
 * a session is found by its secret's keyed hash alone (the cookie names no organization), as a token is.
 */
export class DashboardSessions1764790000000 implements MigrationInterface {
  name = 'DashboardSessions1764790000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE dashboard_sessions (
        organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        id               text NOT NULL,
        secret_hash      bytea NOT NULL,
        subject          text NOT NULL,
        email            text,
        name             text,
        role             text NOT NULL CHECK (role IN ('viewer', 'editor', 'admin')),
        provider_tokens  text NOT NULL,
        created_at       timestamptz NOT NULL DEFAULT now(),
        last_seen_at     timestamptz NOT NULL DEFAULT now(),
        refreshed_at     timestamptz NOT NULL DEFAULT now(),
        expires_at       timestamptz NOT NULL,
        PRIMARY KEY (organization_id, id)
      )`);
    await queryRunner.query(`CREATE INDEX dashboard_sessions_secret_hash_idx ON dashboard_sessions (secret_hash)`);
    await queryRunner.query(`CREATE INDEX dashboard_sessions_expires_idx ON dashboard_sessions (expires_at)`);
    await queryRunner.query(`ALTER TABLE audit_log ADD COLUMN actor_subject text, ADD COLUMN actor_email text, ADD COLUMN actor_name text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE audit_log DROP COLUMN actor_subject, DROP COLUMN actor_email, DROP COLUMN actor_name`);
    await queryRunner.query(`DROP TABLE dashboard_sessions`);
  }
}
