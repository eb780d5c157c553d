import type { MigrationInterface, QueryRunner } from 'typeorm';
import { derivedId } from '../../ids/ids';

interface PendingAnnouncement {
  organization_id: string;
  event_key: string;
  user_id: string;
  data: Record<string, unknown>;
}

/** Rows moved per statement: an upgrade leaves few, but their number is not bounded. */
const MOVE_AT_ONCE = 1_000;

/**
 * Bulk scoring stages its prediction.updated announcements in the domain events' outbox, in each
 * chunk's transaction, instead of an outbox of its own (scoring_announcements) that it published from
 * into the general one. The rows an earlier release committed and did not publish (a shard killed
 * between its commit and its publish, whose next holder has not run yet) move over as that release
 * would have published them: the event id derived from the same dedupe key, the event's JSON as
 * DomainEventsService builds it. An event already in the outbox keeps its row. The worker's resumer
 * queues them (they are older than its bound once the release runs).
 */
export class ScoringAnnouncementsToOutbox1765200000000 implements MigrationInterface {
  name = 'ScoringAnnouncementsToOutbox1765200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Before the read: a chunk the earlier release commits meanwhile is either read here or, waiting
    // behind the lock, fails once the table is gone (its job is retried), never dropped unread.
    await queryRunner.query(`LOCK TABLE scoring_announcements IN ACCESS EXCLUSIVE MODE`);
    const pending = (await queryRunner.query(`SELECT organization_id, event_key, user_id, data FROM scoring_announcements ORDER BY organization_id, event_key`)) as PendingAnnouncement[];
    const createdAt = new Date().toISOString();
    for (let start = 0; start < pending.length; start += MOVE_AT_ONCE) {
      const rows = pending.slice(start, start + MOVE_AT_ONCE).map(({ organization_id, event_key, user_id, data }) => {
        const id = derivedId('evt', `${organization_id}/prediction.updated/${event_key}`);
        return { organization_id, id, user_id, event: { id, type: 'prediction.updated', organizationId: organization_id, createdAt, data: { userId: user_id, ...data } } };
      });
      await queryRunner.query(
        `INSERT INTO domain_event_outbox (organization_id, event_id, user_id, event)
         SELECT e.organization_id, e.event_id, e.user_id, e.event::jsonb FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS e (organization_id, event_id, user_id, event)
         ON CONFLICT DO NOTHING`,
        [rows.map((row) => row.organization_id), rows.map((row) => row.id), rows.map((row) => row.user_id), rows.map((row) => JSON.stringify(row.event))],
      );
    }
    await queryRunner.query(`DROP TABLE scoring_announcements`);
  }

  /** The table as ShardedScoring1764810000000 made it, empty: the moved events stay in the outbox, where the earlier release publishes too. */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE scoring_announcements (
        organization_id text NOT NULL,
        event_key text NOT NULL,
        run_id text NOT NULL,
        shard integer NOT NULL,
        user_id text NOT NULL,
        data jsonb NOT NULL,
        PRIMARY KEY (organization_id, event_key)
      )`);
    await queryRunner.query(`CREATE INDEX scoring_announcements_shard_idx ON scoring_announcements (organization_id, run_id, shard)`);
    await queryRunner.query(`CREATE INDEX scoring_announcements_user_idx ON scoring_announcements (organization_id, user_id)`);
  }
}
