import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Single sign-on grants: which group of the identity provider holds which role in an organization,
 * set by its admin (PUT /v1/organization/sso-grants, CLI `sso grant`). Keys lead with organization_id
 * like every organization-owned table; sign-in looks a person's groups up across organizations, by group.
 */
export class SsoGrants1764800000000 implements MigrationInterface {
  name = 'SsoGrants1764800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE sso_grants (
        organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        group_name       text NOT NULL,
        role             text NOT NULL CHECK (role IN ('viewer', 'editor', 'admin')),
        created_at       timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, group_name)
      )`);
    await queryRunner.query(`CREATE INDEX sso_grants_group_name_idx ON sso_grants (group_name)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE sso_grants`);
  }
}
