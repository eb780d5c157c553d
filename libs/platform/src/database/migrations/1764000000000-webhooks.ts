import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Webhooks1764000000000 implements MigrationInterface {
  name = 'Webhooks1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE webhooks (
        id                text PRIMARY KEY,
        organization_id   text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        url               text NOT NULL,
        events            text[] NOT NULL CHECK (cardinality(events) > 0),
        secret_encrypted  text NOT NULL,
        enabled           boolean NOT NULL DEFAULT true,
        disabled_reason   text,
        failing_since     timestamptz,
        created_at        timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX webhooks_organization_idx ON webhooks (organization_id, created_at)`);
    // user_id is set for events about one user (prediction.updated), so erasure can find those rows.
    await queryRunner.query(`
      CREATE TABLE webhook_deliveries (
        id                  text PRIMARY KEY,
        webhook_id          text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
        organization_id     text NOT NULL,
        event_id            text NOT NULL,
        event_type          text NOT NULL,
        user_id             text,
        payload             jsonb NOT NULL,
        status              text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed', 'abandoned')),
        attempts            integer NOT NULL DEFAULT 0,
        last_response_code  integer,
        last_error          text,
        last_latency_ms     integer,
        next_attempt_at     timestamptz,
        created_at          timestamptz NOT NULL DEFAULT now(),
        updated_at          timestamptz NOT NULL DEFAULT now(),
        delivered_at        timestamptz,
        UNIQUE (webhook_id, event_id)
      )`);
    await queryRunner.query(`CREATE INDEX webhook_deliveries_listing_idx ON webhook_deliveries (webhook_id, created_at DESC, id DESC)`);
    await queryRunner.query(`CREATE INDEX webhook_deliveries_user_idx ON webhook_deliveries (organization_id, user_id) WHERE user_id IS NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE webhook_deliveries`);
    await queryRunner.query(`DROP TABLE webhooks`);
  }
}
