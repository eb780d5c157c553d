import type { SqlRunner, SqlStatement, SqlTransactionOptions } from '@foresight/platform';
import type { StoredUserId } from './stored-user-id';
import type { UserEvent } from './user-event';
import { EPOCH_MS } from './user-history.sql';

/**
 * The columns of a cursor over events (aliased `e`, or `of`) that reads users' histories: the user
 * the event counts for (an expression, in byte order so a user's events come together and resume
 * points compare as compareStoredIds does), then what the feature definitions read of the event.
 */
export const historyColumns = (user: string, of = 'e') =>
  `${user} COLLATE "C" AS user_id, ${EPOCH_MS(`${of}.occurred_at`)} AS t, ${of}.event, ${of}.session_id, ${of}.screen, ${of}.dwell_ms, ` +
  `${of}.hesitation_ms, ${of}.scroll_depth, ${of}.numeric_properties, ${of}.string_properties`;

export interface HistoryRow {
  user_id: StoredUserId;
  t: number;
  event: string;
  session_id: string | null;
  screen: string | null;
  dwell_ms: number | null;
  hesitation_ms: number | null;
  scroll_depth: number | null;
  numeric_properties: Record<string, number> | null;
  string_properties: Record<string, string> | null;
}

/**
 * The snapshot a cursor read runs in: one repeatable-read transaction (every cursor of it reads the
 * same state), on the read replica when one is configured (training and bulk scoring tolerate its
 * lag), without JIT: cursors over many events sort them once, and JIT compiles for seconds and saves
 * nothing on that.
 */
export const READ_SNAPSHOT: SqlTransactionOptions = { on: 'replica', isolation: 'REPEATABLE READ', readOnly: true, jit: false };

/**
 * The rows of a declared cursor, one `fetch` (`FETCH n FROM cursor`) per round trip. The next batch
 * is requested before this one is handed out, so the database produces it meanwhile; one requested
 * when the reader stops (or throws) settles before the generator returns, so the transaction can end
 * on the same connection.
 */
export async function* cursorBatches<T>(runner: SqlRunner, fetch: SqlStatement<T, []>): AsyncGenerator<T[]> {
  const next = (): Promise<T[]> => runner.rows(fetch, []);
  let pending = next();
  try {
    for (;;) {
      const batch = await pending;
      if (batch.length === 0) return;
      pending = next();
      yield batch;
    }
  } finally {
    await pending.catch(() => undefined);
  }
}

/** A cursor of historyColumns rows, ordered by user then time, as one history per user. */
export async function* userHistories(batches: AsyncIterable<HistoryRow[]>): AsyncGenerator<[StoredUserId, UserEvent[]]> {
  let current: StoredUserId | undefined;
  let history: UserEvent[] = [];
  for await (const batch of batches) {
    for (const row of batch) {
      if (row.user_id !== current) {
        if (current !== undefined) yield [current, history];
        current = row.user_id;
        history = [];
      }
      history.push({
        occurredAt: row.t,
        event: row.event,
        sessionId: row.session_id,
        screen: row.screen,
        dwellMs: row.dwell_ms,
        hesitationMs: row.hesitation_ms,
        scrollDepth: row.scroll_depth,
        numbers: row.numeric_properties,
        strings: row.string_properties,
      });
    }
  }
  if (current !== undefined) yield [current, history];
}

/** Stored ids in the order of `COLLATE "C"`: their UTF-8 bytes (UTF-16 code units order some characters apart). */
export function compareStoredIds(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
