import type { MigrationInterface, QueryRunner } from 'typeorm';

export class OrganizationsAndTokens1763700000000 implements MigrationInterface {
  name = 'OrganizationsAndTokens1763700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE organizations (
        id                    text PRIMARY KEY,
        name                  text NOT NULL,
        region                text NOT NULL CHECK (region IN ('eu', 'us')),
        rate_limit_per_minute integer NOT NULL DEFAULT 300 CHECK (rate_limit_per_minute > 0),
        burst_per_minute      integer NOT NULL DEFAULT 600,
        created_at            timestamptz NOT NULL DEFAULT now(),
        updated_at            timestamptz NOT NULL DEFAULT now(),
        CHECK (burst_per_minute > rate_limit_per_minute)
      )`);
    await queryRunner.query(`
      CREATE TABLE api_tokens (
        id              text PRIMARY KEY,
        organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        environment     text NOT NULL CHECK (environment IN ('dev', 'staging', 'prod')),
        scopes          text[] NOT NULL,
        secret_hash     bytea NOT NULL UNIQUE,
        hint            text NOT NULL,
        created_at      timestamptz NOT NULL DEFAULT now(),
        expires_at      timestamptz,
        revoked_at      timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX api_tokens_organization_idx ON api_tokens (organization_id, created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE api_tokens`);
    await queryRunner.query(`DROP TABLE organizations`);
  }
}
