import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Events1763800000000 implements MigrationInterface {
  name = 'Events1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Partitioned by month on event time. First-class behavioral signals get typed columns so
    // features aggregate them in SQL; free-form properties and context stay JSON.
    await queryRunner.query(`
      CREATE TABLE events (
        organization_id text NOT NULL,
        message_id      text NOT NULL,
        event           text NOT NULL,
        user_id         text,
        anonymous_id    text,
        session_id      text,
        occurred_at     timestamptz NOT NULL,
        received_at     timestamptz NOT NULL,
        screen          text,
        scroll_depth    real CHECK (scroll_depth BETWEEN 0 AND 1),
        dwell_ms        integer CHECK (dwell_ms >= 0),
        hesitation_ms   integer CHECK (hesitation_ms >= 0),
        properties      jsonb,
        context         jsonb,
        CHECK (user_id IS NOT NULL OR anonymous_id IS NOT NULL)
      ) PARTITION BY RANGE (occurred_at)`);
    // Catches events older than the oldest monthly partition (back-filled history).
    await queryRunner.query(`CREATE TABLE events_default PARTITION OF events DEFAULT`);
    await queryRunner.query(`CREATE INDEX events_user_time_idx ON events (organization_id, user_id, occurred_at) WHERE user_id IS NOT NULL`);
    await queryRunner.query(
      `CREATE INDEX events_anonymous_time_idx ON events (organization_id, anonymous_id, occurred_at) WHERE anonymous_id IS NOT NULL`,
    );
    await queryRunner.query(`CREATE INDEX events_time_idx ON events (organization_id, occurred_at)`);
    // A unique key on a partitioned table must include the partition key; messageId dedupe must not.
    await queryRunner.query(`
      CREATE TABLE event_message_ids (
        organization_id text NOT NULL,
        message_id      text NOT NULL,
        received_at     timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, message_id)
      )`);
    // anonymousId → userId, from identify calls or events carrying both.
    await queryRunner.query(`
      CREATE TABLE identities (
        organization_id text NOT NULL,
        anonymous_id    text NOT NULL,
        user_id         text NOT NULL,
        linked_at       timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, anonymous_id)
      )`);
    await queryRunner.query(`CREATE INDEX identities_user_idx ON identities (organization_id, user_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE identities`);
    await queryRunner.query(`DROP TABLE event_message_ids`);
    await queryRunner.query(`DROP TABLE events`);
  }
}
