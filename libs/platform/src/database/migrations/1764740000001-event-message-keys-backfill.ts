import type { MigrationInterface, QueryRunner } from 'typeorm';

export class EventMessageKeysBackfill1764740000001 implements MigrationInterface {
  name = 'EventMessageKeysBackfill1764740000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    // The keys of every messageId claimed before the upgrade, in its own transaction after the
    // trigger of EventMessageKeys1764740000000 committed: a claim the earlier release makes meanwhile
    // adds its key itself, and conflicts here are skipped. It locks no row the earlier release writes.
    // In key order, so the index fills page after page.
    await queryRunner.query(`
      INSERT INTO event_message_keys (key)
      SELECT key FROM (SELECT event_message_key(organization_id, message_id) AS key FROM event_message_ids) claimed
       ORDER BY key
      ON CONFLICT DO NOTHING`);
  }

  async down(): Promise<void> {
    // The keys stay: EventMessageKeys1764740000000's down drops them with their table.
  }
}
