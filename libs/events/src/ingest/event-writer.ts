import { Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { isRowRefusal, retriedOnConflict } from '@foresight/platform';
import type { EventRow } from './event-row';

export interface WriteResult {
  accepted: number;
  duplicates: number;
}

interface PendingWrite {
  rows: EventRow[];
  resolve: (result: WriteResult) => void;
  reject: (error: unknown) => void;
}

/** Upper bound on rows in one statement; a larger backlog is written in several groups. */
const MAX_ROWS_PER_GROUP = 5000;
/** Groups written at once; each holds one pooled connection for its transaction. */
const MAX_CONCURRENT_GROUPS = 2;

/**
 * Links anonymous ids to users; returns the users whose set of linked anonymous ids changed (the
 * newly linked user and, for a re-link, the previous one), whose histories therefore changed.
 * Runs before the events are inserted, so an anonymous event linked by the same group counts for its user.
 */
const LINK_IDENTITIES_SQL = `
  WITH input AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[]) AS t(organization_id, anonymous_id, user_id)
  ), previous AS (
    SELECT i.organization_id, i.anonymous_id, i.user_id FROM identities i JOIN input USING (organization_id, anonymous_id)
  ), linked AS (
    INSERT INTO identities (organization_id, anonymous_id, user_id)
    SELECT * FROM input
    ON CONFLICT (organization_id, anonymous_id) DO UPDATE SET user_id = EXCLUDED.user_id, linked_at = now()
    WHERE identities.user_id IS DISTINCT FROM EXCLUDED.user_id
    RETURNING organization_id, anonymous_id, user_id
  )
  SELECT organization_id, user_id FROM linked
  UNION
  SELECT p.organization_id, p.user_id FROM linked l JOIN previous p USING (organization_id, anonymous_id)`;

/**
 * Inserts the new messageIds and, in the same statement, the events whose messageId was new. Then
 * moves the user_activity revision of every user whose history changed (serving's cache relies on
 * it): the stored events' users (an anonymous event counts for the user its id is linked to) and
 * the re-linked users ($16, $17). All in this one statement, sorted, so concurrent groups lock
 * those rows in the same order and cannot deadlock on them.
 * Returns the keys actually stored, so each request learns its own accepted and duplicate counts.
 */
const INSERT_EVENTS_SQL = `
  WITH input AS (
    SELECT * FROM unnest(
      $1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::timestamptz[],
      $9::text[], $10::real[], $11::integer[], $12::integer[], $13::text[], $14::text[], $15::text[]
    ) AS t(organization_id, message_id, event, user_id, anonymous_id, session_id, occurred_at, received_at,
           screen, scroll_depth, dwell_ms, hesitation_ms, properties, context, encryption_key_id)
  ), fresh AS (
    INSERT INTO event_message_ids (organization_id, message_id)
    SELECT organization_id, message_id FROM input
    ON CONFLICT DO NOTHING
    RETURNING organization_id, message_id
  ), stored AS (
    INSERT INTO events (organization_id, message_id, event, user_id, anonymous_id, session_id, occurred_at, received_at,
                        screen, scroll_depth, dwell_ms, hesitation_ms, properties, context, encryption_key_id)
    SELECT i.* FROM input i JOIN fresh f USING (organization_id, message_id)
    RETURNING organization_id, message_id, user_id, anonymous_id
  ), touched AS (
    INSERT INTO user_activity (organization_id, user_id)
    SELECT DISTINCT organization_id, user_id FROM (
      SELECT s.organization_id, coalesce(s.user_id, i.user_id) AS user_id
        FROM stored s
        LEFT JOIN identities i ON s.user_id IS NULL AND i.organization_id = s.organization_id AND i.anonymous_id = s.anonymous_id
      UNION ALL
      SELECT * FROM unnest($16::text[], $17::text[])
    ) changed WHERE user_id IS NOT NULL ORDER BY 1, 2
    ON CONFLICT (organization_id, user_id) DO UPDATE SET revision = user_activity.revision + 1
  )
  SELECT organization_id || ' ' || message_id AS key FROM stored`;

/**
 * Group commit: requests arriving while a write is in flight are coalesced into the next single
 * transaction. A request is answered only after its group committed, so acknowledged events are durable.
 * Requests of different organizations share groups, so a group Postgres refuses is split until the
 * refusal is one request's own (CONTRACT.md: one organization's request never fails another's).
 */
@Injectable()
export class EventWriter implements BeforeApplicationShutdown {
  private readonly queue: PendingWrite[] = [];
  private running = 0;
  private idle: Array<() => void> = [];

  constructor(private readonly dataSource: DataSource) {}

  write(rows: EventRow[]): Promise<WriteResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ rows, resolve, reject });
      this.pump();
    });
  }

  /** Acknowledged or not, nothing queued is dropped on shutdown: wait for every group to commit. */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.running === 0 && this.queue.length === 0) return;
    await new Promise<void>((resolve) => this.idle.push(resolve));
  }

  private pump(): void {
    while (this.running < MAX_CONCURRENT_GROUPS && this.queue.length > 0) {
      this.running++;
      void this.writeGroup(this.takeGroup()).finally(() => {
        this.running--;
        this.pump();
        if (this.running === 0 && this.queue.length === 0) this.idle.splice(0).forEach((resolve) => resolve());
      });
    }
  }

  private takeGroup(): PendingWrite[] {
    const group: PendingWrite[] = [];
    let rows = 0;
    while (this.queue.length > 0 && (group.length === 0 || rows + this.queue[0].rows.length <= MAX_ROWS_PER_GROUP)) {
      const next = this.queue.shift() as PendingWrite;
      rows += next.rows.length;
      group.push(next);
    }
    return group;
  }

  private async writeGroup(group: PendingWrite[]): Promise<void> {
    let stored: Set<string>;
    try {
      stored = await this.commit(group);
    } catch (error) {
      // One request's rows refused (data Postgres cannot hold, a constraint): nothing of the group
      // was committed. Each half is written again on its own, so the refusal narrows down to the
      // request that caused it, and only that request fails; the others are stored once, as usual.
      if (group.length > 1 && isRowRefusal(error)) {
        const half = Math.ceil(group.length / 2);
        await this.writeGroup(group.slice(0, half));
        await this.writeGroup(group.slice(half));
        return;
      }
      for (const pending of group) pending.reject(error);
      return;
    }
    const claimed = new Set<string>();
    for (const pending of group) {
      let accepted = 0;
      for (const row of pending.rows) {
        const key = keyOf(row);
        if (stored.has(key) && !claimed.has(key)) {
          claimed.add(key);
          accepted++;
        }
      }
      pending.resolve({ accepted, duplicates: pending.rows.length - accepted });
    }
  }

  /** One transaction for the group; returns the keys it stored. */
  private commit(group: PendingWrite[]): Promise<Set<string>> {
    // The first occurrence of a messageId in the group is the one that may be stored. Sorted by
    // key: concurrent groups sending the same messageIds then claim them in the same order (and a
    // deadlock with another writer, erasure say, is retried).
    const firsts = new Map<string, EventRow>();
    for (const { rows } of group) for (const row of rows) if (!firsts.has(keyOf(row))) firsts.set(keyOf(row), row);
    const rows = [...firsts.entries()].sort(byKey).map(([, row]) => row);
    return retriedOnConflict(() =>
      this.dataSource.transaction(async (manager) => {
        const relinked = await linkIdentities(manager, rows);
        return insertEvents(manager, rows, relinked);
      }),
    );
  }
}


function byKey([a]: [string, unknown], [b]: [string, unknown]): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function keyOf(row: EventRow): string {
  return `${row.organizationId} ${row.messageId}`;
}

interface UserRef {
  organization_id: string;
  user_id: string;
}

async function insertEvents(manager: EntityManager, rows: EventRow[], relinked: UserRef[]): Promise<Set<string>> {
  const column = <K extends keyof EventRow>(key: K) => rows.map((row) => row[key]);
  const result: Array<{ key: string }> = await manager.query(INSERT_EVENTS_SQL, [
    column('organizationId'),
    column('messageId'),
    column('event'),
    column('userId'),
    column('anonymousId'),
    column('sessionId'),
    column('occurredAt'),
    column('receivedAt'),
    column('screen'),
    column('scrollDepth'),
    column('dwellMs'),
    column('hesitationMs'),
    column('properties'),
    column('context'),
    column('encryptionKeyId'),
    relinked.map((user) => user.organization_id),
    relinked.map((user) => user.user_id),
  ]);
  return new Set(result.map((r) => r.key));
}

async function linkIdentities(manager: EntityManager, rows: EventRow[]): Promise<UserRef[]> {
  // One link per anonymousId per statement (Postgres refuses to update a row twice); the latest wins.
  // Sorted by key, so concurrent groups lock the identity rows in the same order.
  const links = new Map<string, EventRow>();
  for (const row of rows) if (row.userId && row.anonymousId) links.set(`${row.organizationId} ${row.anonymousId}`, row);
  if (links.size === 0) return [];
  const list = [...links.entries()].sort(byKey).map(([, row]) => row);
  return manager.query(LINK_IDENTITIES_SQL, [list.map((r) => r.organizationId), list.map((r) => r.anonymousId), list.map((r) => r.userId)]);
}
