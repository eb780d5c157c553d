import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The domain events published and not yet fanned out to their deliveries: a publish stores the event
 * before queueing its job, the fan-out removes it with the deliveries it stored, and the worker queues
 * again what is left past a bound (Redis lost the job). `user_id` is the user of an event about one
 * user (prediction.updated), where erasure finds it; `created_at` orders the resumer's look.
 */
export class DomainEventOutbox1765100000000 implements MigrationInterface {
  name = 'DomainEventOutbox1765100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE domain_event_outbox (
        organization_id text NOT NULL,
        event_id text NOT NULL,
        user_id text,
        event jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, event_id)
      )`);
    await queryRunner.query(`CREATE INDEX domain_event_outbox_created_idx ON domain_event_outbox (created_at)`);
    await queryRunner.query(`CREATE INDEX domain_event_outbox_user_idx ON domain_event_outbox (organization_id, user_id) WHERE user_id IS NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE domain_event_outbox`);
  }
}
