import { type BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { APP_CONFIG, type AppConfig, isRowRefusal, postgresErrorCode, retriedOnConflict, SqlExecutor, type SqlRunner } from '@foresight/platform';
import { type StoredUserId, storedUserIdFromStorage } from '../users/stored-user-id';
import type { EventRow } from './event-row';
import {
  CLAIM_MESSAGE_KEYS,
  COPY_EVENTS,
  COPY_MESSAGE_KEYS,
  INSERT_EVENTS,
  LINK_IDENTITIES,
  TOUCH_AND_NAME_USERS,
  TOUCH_CHANGED_USERS,
  TOUCH_LISTED_USERS,
  type UserRef,
} from './event-writer.sql';
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
    private readonly sql: SqlExecutor,
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
          const tx = this.sql.within(manager);
          const stored = await this.claimMessageKeys(manager, keys, firsts, bulk);
          const relinked = await linkIdentities(tx, [...firsts.values()]);
          await (this.embedded ? insertEvents(tx, stored) : this.copyEvents(manager, stored));
          const changed = await touchUsers(tx, stored, relinked, group.some((pending) => pending.changedUsers));
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

  /**
   * The rows whose messageId this transaction claimed (all of them unless some were sent before), in
   * key order. In bulk, one COPY claims them all or, at the first duplicate, fails the transaction.
   */
  private async claimMessageKeys(manager: EntityManager, keys: string[], rows: Map<string, EventRow>, bulk: boolean): Promise<EventRow[]> {
    const inOrder = (claimed: string[]) => claimed.map((key) => rows.get(key) as EventRow);
    const organizations = inOrder(keys).map((row) => row.organizationId);
    if (bulk) {
      await this.sql.copyIn(manager, COPY_MESSAGE_KEYS, keys.map((key, i) => `${organizations[i]}\t\\\\x${key}\n`).join(''));
      return inOrder(keys);
    }
    const claimed = await this.sql.within(manager).rows(CLAIM_MESSAGE_KEYS, [organizations, keys]);
    if (claimed.length === keys.length) return inOrder(keys);
    const claimedKeys = new Set(claimed.map((row) => row.key));
    return inOrder(keys.filter((key) => claimedKeys.has(key)));
  }

  private async copyEvents(manager: EntityManager, rows: EventRow[]): Promise<void> {
    if (rows.length > 0) await this.sql.copyIn(manager, COPY_EVENTS, rows.map(copyRow).join(''));
  }
}

/** The values in the order of their keys; the default sort compares the keys' UTF-16 code units natively, without a comparator call per comparison. */
function inKeyOrder<T>(byKey: Map<string, T>): T[] {
  return [...byKey.keys()].sort().map((key) => byKey.get(key) as T);
}

function isDuplicateMessageKey(error: unknown): boolean {
  return postgresErrorCode(error) === '23505' && (error as { constraint?: unknown }).constraint === 'event_message_keys_pkey';
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
    `${copyNumber(row.scrollDepth)}\t${copyNumber(row.dwellMs)}\t${copyNumber(row.hesitationMs)}\t${copyText(row.numericProperties)}\t${copyText(row.stringProperties)}\t` +
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

async function insertEvents(tx: SqlRunner, rows: EventRow[]): Promise<void> {
  if (rows.length === 0) return;
  const column = <K extends keyof EventRow>(key: K) => rows.map((row) => row[key]);
  await tx.affected(INSERT_EVENTS, [
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
    column('stringProperties'),
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
async function touchUsers(tx: SqlRunner, stored: EventRow[], relinked: UserRef[], named: boolean): Promise<UserRef[]> {
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
  const columns = (touched: Touched[]): [string[], string[], string[]] => [touched.map((t) => t.organizationId), touched.map((t) => t.id), touched.map((t) => t.earliest)];
  if (anonymous.size === 0) {
    // Organization ids have one length and no space, so key order is (organization, user) order; it
    // is byte order, as TOUCH_CHANGED_USERS sorts, except between ids holding characters beyond U+FFFF
    // (UTF-16 surrogates) and ones holding U+E000-U+FFFF: a deadlock there is retried (retriedOnConflict).
    const listed = inKeyOrder(users);
    await tx.affected(TOUCH_LISTED_USERS, columns(listed));
    return named ? listed.map((user) => ({ organization_id: user.organizationId, user_id: user.id })) : [];
  }
  const parameters: [...ReturnType<typeof columns>, ...ReturnType<typeof columns>] = [...columns([...users.values()]), ...columns([...anonymous.values()])];
  if (named) return tx.rows(TOUCH_AND_NAME_USERS, parameters);
  await tx.affected(TOUCH_CHANGED_USERS, parameters);
  return [];
}

async function linkIdentities(tx: SqlRunner, rows: EventRow[]): Promise<UserRef[]> {
  // One link per anonymousId per statement (Postgres refuses to update a row twice); the one sent last wins.
  // Sorted by key, so concurrent groups lock the identity rows in the same order.
  const links = new Map<string, { organizationId: string; anonymousId: string; userId: string }>();
  for (const { organizationId, anonymousId, userId } of rows) if (userId && anonymousId) links.set(`${organizationId} ${anonymousId}`, { organizationId, anonymousId, userId });
  if (links.size === 0) return [];
  const list = inKeyOrder(links);
  return tx.rows(LINK_IDENTITIES, [list.map((r) => r.organizationId), list.map((r) => r.anonymousId), list.map((r) => r.userId)]);
}
