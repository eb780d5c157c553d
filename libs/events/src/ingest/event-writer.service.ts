import { type BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { APP_CONFIG, type AppConfig, copyInto, isRowRefusal, postgresErrorCode, retriedOnConflict } from '@foresight/platform';
import { type StoredUserId, storedUserIdFromStorage } from '../users/stored-user-id';
import type { EventRow } from './event-row';
import { messageKey } from './message-key';

export interface WriteResult {
  accepted: number;
  duplicates: number;
  /**
   * Users of the request's organization whose history changed in its group commit: the stored events'
   * users, the users their anonymous ids are linked to, and both sides of a re-link. Empty unless
   * the write asked for them.
   */
  changedUsers: StoredUserId[];
}

interface PendingWrite {
  rows: EventRow[];
  /** Whether the result must name the users whose history changed. */
  changedUsers: boolean;
  resolve: (result: WriteResult) => void;
  reject: (error: unknown) => void;
}

/** Upper bound on rows in one statement; a larger backlog is written in several groups. */
const MAX_ROWS_PER_GROUP = 5000;
/**
 * Groups written at once; each holds one pooled connection (of DATABASE_POOL_SIZE, 10 by default) for
 * its transaction. While one group's connection waits for this process's event loop, others' work:
 * in an interleaved A/B of bench:events' batched load, 4 took 6% more events/s than 2 (every one of
 * 6 rounds ahead), and 6 no more than 4.
 */
const MAX_CONCURRENT_GROUPS = 4;

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

const EVENT_COLUMNS = `organization_id, message_id, event, user_id, anonymous_id, session_id, occurred_at, received_at,
  screen, scroll_depth, dwell_ms, hesitation_ms, numeric_properties, properties, context, encryption_key_id`;

/**
 * Claims the group's messageIds by their keys (messageKey), in key order (the rows come sorted), so
 * concurrent groups sending the same ones lock them in the same order. One COPY while no duplicate
 * comes (the usual case; the bulk path costs about a third less and needs no savepoint round trips):
 * a duplicate fails it, and with it the transaction, which then runs again with CLAIM_MESSAGE_KEYS_SQL.
 * Either way the primary key decides: a messageId another transaction is storing at the same moment
 * waits for it, then counts as a duplicate if it committed.
 */
const COPY_MESSAGE_KEYS_SQL = `COPY event_message_keys (organization_id, key) FROM STDIN`;

/** Returns the keys actually claimed (hex): only their events are stored, and each request learns its own counts from them. */
const CLAIM_MESSAGE_KEYS_SQL = `
  INSERT INTO event_message_keys (organization_id, key)
  SELECT organization_id, decode(key, 'hex') FROM unnest($1::text[], $2::text[]) AS t(organization_id, key)
  ON CONFLICT DO NOTHING
  RETURNING encode(key, 'hex') AS key`;

/**
 * The claimed events, in COPY text format (copyRow): Postgres's bulk path writes a heap page at a
 * time instead of a row at a time, which makes it the cheapest way in (2,000 bench rows: about 15 ms
 * against 26 ms for INSERT … SELECT FROM unnest, client encoding included).
 */
const COPY_EVENTS_SQL = `COPY events (${EVENT_COLUMNS}) FROM STDIN`;

/** The same rows for embedded PGlite, whose socket does not speak COPY FROM STDIN. */
const INSERT_EVENTS_SQL = `
  INSERT INTO events (${EVENT_COLUMNS})
  SELECT * FROM unnest(
    $1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::timestamptz[],
    $9::text[], $10::real[], $11::integer[], $12::integer[], $13::jsonb[], $14::text[], $15::text[], $16::text[])`;

/**
 * How a user_activity row takes a change: a new row starts at revision 1; an existing one's revision
 * moves, and is counted as a delta revision (1764760000000-user-activity-delta.ts) when the earliest
 * event time stored for the user is at or after the user's `delta_from`, which EXCLUDED.delta_from
 * carries (a new row keeps it, meaningless with no base).
 */
const MOVE_REVISION_ON_CONFLICT = `
  ON CONFLICT (organization_id, user_id) DO UPDATE
     SET revision = user_activity.revision + 1,
         delta_count = user_activity.delta_count + (EXCLUDED.delta_from >= user_activity.delta_from)::int`;

/**
 * Moves the user_activity revision of every user whose history changed (serving's cache relies on
 * it): the stored events' users ($1, $2, with the re-linked users) and the users the stored
 * anonymous-only events' ids are linked to ($4, $5; linked by this transaction already, so they
 * count), each with the earliest event time it stored for them ($3, $6; -infinity for a re-link,
 * which changes the history at any time). Sorted in byte order, which is the writer's own key order
 * for every id without characters beyond U+FFFF (touchUsers), so concurrent groups lock those rows in
 * the same order and cannot deadlock on them.
 */
const TOUCH_USERS_SQL = `
  INSERT INTO user_activity (organization_id, user_id, delta_from)
  SELECT organization_id, user_id, min(earliest) FROM (
    SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[]) AS u(organization_id, user_id, earliest)
    UNION ALL
    SELECT i.organization_id, i.user_id, a.earliest
      FROM unnest($4::text[], $5::text[], $6::timestamptz[]) AS a(organization_id, anonymous_id, earliest)
      JOIN identities i USING (organization_id, anonymous_id)
  ) changed GROUP BY 1, 2 ORDER BY organization_id COLLATE "C", user_id COLLATE "C"${MOVE_REVISION_ON_CONFLICT}`;

/**
 * TOUCH_USERS_SQL for a group whose stored events all name their user: the writer sends each user
 * once, with their earliest time, already in key order (touchUsers), and the rows are inserted in
 * that order. Without the grouping and sort, a user's revision costs about a quarter less Postgres
 * CPU (statements of 500 users into a table of 100,000, 5 alternated rounds: a median of 7.3 against
 * 10.3 µs per user).
 */
const TOUCH_LISTED_USERS_SQL = `
  INSERT INTO user_activity (organization_id, user_id, delta_from)
  SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[])${MOVE_REVISION_ON_CONFLICT}`;

/**
 * TOUCH_USERS_SQL naming the users it touched, for a group that must tell them. Only then: a row per
 * user made bench:events' API spend 2.3 µs more CPU per event (19.1 against 16.8 in an A/B).
 */
const TOUCH_AND_NAME_USERS_SQL = `${TOUCH_USERS_SQL}
  RETURNING organization_id, user_id`;

/**
 * Group commit: requests arriving while a write is in flight are coalesced into the next single
 * transaction. A request is answered only after its group committed, so acknowledged events are durable.
 * Requests of different organizations share groups, so a group Postgres refuses is split until the
 * refusal is one request's own (one organization's request never fails another's).
 */
@Injectable()
export class EventWriterService implements BeforeApplicationShutdown {
  private readonly queue: PendingWrite[] = [];
  private running = 0;
  private idle: Array<() => void> = [];

  private readonly embedded: boolean;
  /**
   * Organizations whose last claim met a duplicate (an SDK retrying, say). A group holding none of
   * them claims its messageIds with one COPY; a COPY that meets a duplicate fails, and its group runs
   * again with the row-wise claim, as does every group of such an organization until one of its
   * claims meets no duplicate. So one organization's retries never slow another's groups.
   */
  private readonly duplicateSenders = new Set<string>();

  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.embedded = config.embedded;
  }

  write(rows: EventRow[], options: { changedUsers: boolean }): Promise<WriteResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ rows, changedUsers: options.changedUsers, resolve, reject });
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
    let stored: Set<EventRow>;
    let changed: UserRef[];
    try {
      ({ stored, changed } = await this.commit(group));
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
    for (const pending of group) {
      let accepted = 0;
      const organizations = new Set<string>();
      for (const row of pending.rows) {
        if (stored.has(row)) accepted++;
        organizations.add(row.organizationId);
      }
      const changedUsers = pending.changedUsers
        ? changed.filter((user) => organizations.has(user.organization_id)).map((user) => storedUserIdFromStorage(user.user_id))
        : [];
      pending.resolve({ accepted, duplicates: pending.rows.length - accepted, changedUsers });
    }
  }

  /**
   * One transaction for the group; returns the rows it stored and the users whose history changed.
   * Only the first occurrence of a messageId in the group can be among the rows, so a repeat, in
   * the same request or another, counts as a duplicate.
   */
  private async commit(group: PendingWrite[]): Promise<{ stored: Set<EventRow>; changed: UserRef[] }> {
    // The first occurrence of a messageId in the group is the one that may be stored. Sorted by
    // key: concurrent groups sending the same messageIds then claim them in the same order (and a
    // deadlock with another writer, erasure say, is retried).
    const firsts = new Map<string, EventRow>();
    for (const { rows } of group) {
      for (const row of rows) {
        const key = messageKey(row.organizationId, row.messageId);
        if (!firsts.has(key)) firsts.set(key, row);
      }
    }
    const keys = [...firsts.keys()].sort();
    const attempt = (bulk: boolean) =>
      retriedOnConflict(() =>
        this.dataSource.transaction(async (manager) => {
          const stored = await claimMessageKeys(manager, keys, firsts, bulk);
          const relinked = await linkIdentities(manager, [...firsts.values()]);
          await (this.embedded ? insertEvents(manager, stored) : copyEvents(manager, stored));
          const changed = await touchUsers(manager, stored, relinked, group.some((pending) => pending.changedUsers));
          return { stored: new Set(stored), changed };
        }),
      );
    if (this.embedded) return attempt(false);
    const organizations = new Set<string>();
    for (const { rows } of group) for (const row of rows) organizations.add(row.organizationId);
    if (![...organizations].some((organization) => this.duplicateSenders.has(organization))) {
      try {
        return await attempt(true);
      } catch (error) {
        if (!isDuplicateMessageKey(error)) throw error;
      }
    }
    const written = await attempt(false);
    for (const organization of organizations) this.duplicateSenders.delete(organization);
    for (const row of firsts.values()) if (!written.stored.has(row)) this.duplicateSenders.add(row.organizationId);
    return written;
  }
}

/** The values in the order of their keys; the default sort compares the keys' UTF-16 code units natively, without a comparator call per comparison. */
function inKeyOrder<T>(byKey: Map<string, T>): T[] {
  return [...byKey.keys()].sort().map((key) => byKey.get(key) as T);
}

interface UserRef {
  organization_id: string;
  user_id: string;
}

/**
 * The rows whose messageId this transaction claimed (all of them unless some were sent before), in
 * key order. In bulk, one COPY claims them all or, at the first duplicate, fails the transaction.
 */
async function claimMessageKeys(manager: EntityManager, keys: string[], rows: Map<string, EventRow>, bulk: boolean): Promise<EventRow[]> {
  const inOrder = (claimed: string[]) => claimed.map((key) => rows.get(key) as EventRow);
  const organizations = inOrder(keys).map((row) => row.organizationId);
  if (bulk) {
    await copyInto(manager, COPY_MESSAGE_KEYS_SQL, keys.map((key, i) => `${organizations[i]}\t\\\\x${key}\n`).join(''));
    return inOrder(keys);
  }
  const claimed: Array<{ key: string }> = await manager.query(CLAIM_MESSAGE_KEYS_SQL, [organizations, keys]);
  if (claimed.length === keys.length) return inOrder(keys);
  const claimedKeys = new Set(claimed.map((row) => row.key));
  return inOrder(keys.filter((key) => claimedKeys.has(key)));
}

function isDuplicateMessageKey(error: unknown): boolean {
  return postgresErrorCode(error) === '23505' && (error as { constraint?: unknown }).constraint === 'event_message_keys_pkey';
}

async function copyEvents(manager: EntityManager, rows: EventRow[]): Promise<void> {
  if (rows.length > 0) await copyInto(manager, COPY_EVENTS_SQL, rows.map(copyRow).join(''));
}

/**
 * A row in COPY's text format: tab-separated, `\N` for NULL, a newline after it. Only what a caller
 * chose (names, ids, the screen, JSON of property keys) is escaped; the organization id, the ISO
 * instants, the sealed `v2:<keyId>:<base64>` values and the key id are written by the server and
 * never hold a tab, newline, carriage return or backslash.
 */
function copyRow(row: EventRow): string {
  return (
    `${row.organizationId}\t${copyText(row.messageId)}\t${copyText(row.event)}\t${copyText(row.userId)}\t` +
    `${copyText(row.anonymousId)}\t${copyText(row.sessionId)}\t${row.occurredAt}\t${row.receivedAt}\t${copyText(row.screen)}\t` +
    `${copyNumber(row.scrollDepth)}\t${copyNumber(row.dwellMs)}\t${copyNumber(row.hesitationMs)}\t${copyText(row.numericProperties)}\t` +
    `${row.properties ?? '\\N'}\t${row.context ?? '\\N'}\t${row.encryptionKeyId ?? '\\N'}\n`
  );
}

/** Backslash, tab, newline and carriage return are the characters COPY's text format reads specially. */
const COPY_SPECIAL = /[\\\t\n\r]/;
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function copyText(value: string | null): string {
  if (value === null) return '\\N';
  return COPY_SPECIAL.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]) : value;
}

function copyNumber(value: number | null): string {
  return value === null ? '\\N' : String(value);
}

async function insertEvents(manager: EntityManager, rows: EventRow[]): Promise<void> {
  if (rows.length === 0) return;
  const column = <K extends keyof EventRow>(key: K) => rows.map((row) => row[key]);
  await manager.query(INSERT_EVENTS_SQL, [
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
    column('numericProperties'),
    column('properties'),
    column('context'),
    column('encryptionKeyId'),
  ]);
}

/** A user or anonymous id of an organization, with the earliest event time stored for it (ISO). */
interface Touched {
  organizationId: string;
  id: string;
  earliest: string;
}

/** Moves the revisions; returns the users whose history changed when `named`, none otherwise. */
async function touchUsers(manager: EntityManager, stored: EventRow[], relinked: UserRef[], named: boolean): Promise<UserRef[]> {
  const users = new Map<string, Touched>();
  const anonymous = new Map<string, Touched>();
  // ISO instants of years 1970 to 9999 (all ingestion accepts) sort as the times they name.
  const touch = (touched: Map<string, Touched>, organizationId: string, id: string, earliest: string) => {
    const key = `${organizationId} ${id}`;
    const seen = touched.get(key);
    if (seen === undefined) touched.set(key, { organizationId, id, earliest });
    else if (earliest < seen.earliest) seen.earliest = earliest;
  };
  for (const user of relinked) touch(users, user.organization_id, user.user_id, '-infinity');
  for (const row of stored) {
    if (row.userId !== null) touch(users, row.organizationId, row.userId, row.occurredAt);
    else touch(anonymous, row.organizationId, row.anonymousId as string, row.occurredAt);
  }
  if (users.size === 0 && anonymous.size === 0) return [];
  const columns = (touched: Touched[]) => [touched.map((t) => t.organizationId), touched.map((t) => t.id), touched.map((t) => t.earliest)];
  if (anonymous.size === 0) {
    // Organization ids have one length and no space, so key order is (organization, user) order; it
    // is byte order, as TOUCH_USERS_SQL sorts, except between ids holding characters beyond U+FFFF
    // (UTF-16 surrogates) and ones holding U+E000-U+FFFF: a deadlock there is retried (retriedOnConflict).
    const listed = inKeyOrder(users);
    await manager.query(TOUCH_LISTED_USERS_SQL, columns(listed));
    return named ? listed.map((user) => ({ organization_id: user.organizationId, user_id: user.id })) : [];
  }
  const parameters = [...columns([...users.values()]), ...columns([...anonymous.values()])];
  if (named) return manager.query(TOUCH_AND_NAME_USERS_SQL, parameters);
  await manager.query(TOUCH_USERS_SQL, parameters);
  return [];
}

async function linkIdentities(manager: EntityManager, rows: EventRow[]): Promise<UserRef[]> {
  // One link per anonymousId per statement (Postgres refuses to update a row twice); the one sent last wins.
  // Sorted by key, so concurrent groups lock the identity rows in the same order.
  const links = new Map<string, EventRow>();
  for (const row of rows) if (row.userId && row.anonymousId) links.set(`${row.organizationId} ${row.anonymousId}`, row);
  if (links.size === 0) return [];
  const list = inKeyOrder(links);
  return manager.query(LINK_IDENTITIES_SQL, [list.map((r) => r.organizationId), list.map((r) => r.anonymousId), list.map((r) => r.userId)]);
}
