import { Injectable } from '@nestjs/common';
import { invalidRequest, SqlExecutor } from '@foresight/platform';
import { EventPayloadCipherService } from '../encryption/event-payload-cipher.service';
import type { StoredUserEventRow } from '../users/user-events.sql';
import { LATEST_LIVE_EVENTS, LIVE_EVENTS_AFTER } from './live-events.sql';

/**
 * received_at is stamped by the API before its group commit: an event stamped just before a read can
 * commit just after it. The feed shows events this long after their stamp, so a cursor never passes
 * one. The feed reads the primary: this settling is measured against the primary's commits, and a
 * replica's lag (which can exceed it) would let a cursor pass events committed but not yet replayed.
 */
const SETTLE_MS = 2_000;

export interface LiveEvent {
  messageId: string;
  event: string;
  /** As stored: a keyed hash (`psn_…`) for pseudonymizing organizations. */
  userId: string | null;
  anonymousId: string | null;
  sessionId: string | null;
  timestamp: string;
  receivedAt: string;
  /** The sending SDK's `context.library.name`, as it sent it; null for direct API calls. */
  library: string | null;
  /** Only for callers allowed to read event payloads (admin); otherwise absent. */
  properties?: Record<string, unknown> | null;
}

export interface LiveEventsPage {
  /** Newest first. */
  events: LiveEvent[];
  /** Pass as `after` to get only what arrived since; opaque. */
  cursor: string | null;
}

/** The same columns export reads. */
type LiveEventRow = StoredUserEventRow;

/** The organization's events in arrival order, for watching the first events of a new install land. */
@Injectable()
export class LiveEventsService {
  constructor(
    private readonly sql: SqlExecutor,
    private readonly cipher: EventPayloadCipherService,
  ) {}

  /** Without `after`: the latest `limit` events. With it: up to `limit` events that arrived after it, oldest of them first to be read. */
  async read(organizationId: string, options: { after?: string; limit: number; withProperties: boolean }): Promise<LiveEventsPage> {
    const settled = new Date(Date.now() - SETTLE_MS).toISOString();
    let rows: LiveEventRow[];
    if (options.after === undefined) {
      rows = await this.sql.rows(LATEST_LIVE_EVENTS, [organizationId, settled, options.limit]);
    } else {
      const cursor = parseCursor(options.after);
      const ascending = await this.sql.rows(LIVE_EVENTS_AFTER, [organizationId, settled, cursor.receivedAt, cursor.messageId, options.limit]);
      rows = ascending.reverse();
    }
    const newest = rows[0];
    return {
      events: rows.map((row) => this.view(organizationId, row, options.withProperties)),
      cursor: newest === undefined ? (options.after ?? null) : formatCursor(newest),
    };
  }

  private view(organizationId: string, row: LiveEventRow, withProperties: boolean): LiveEvent {
    const context = this.cipher.open(organizationId, row.message_id, 'context', row.context, row.encryption_key_id);
    const event: LiveEvent = {
      messageId: row.message_id,
      event: row.event,
      userId: row.user_id,
      anonymousId: row.anonymous_id,
      sessionId: row.session_id,
      timestamp: row.occurred_at.toISOString(),
      receivedAt: row.received_at.toISOString(),
      library: libraryOf(context),
    };
    if (withProperties) event.properties = this.cipher.open(organizationId, row.message_id, 'properties', row.properties, row.encryption_key_id);
    return event;
  }
}

function libraryOf(context: Record<string, unknown> | null): string | null {
  const library = context?.library;
  if (typeof library !== 'object' || library === null) return null;
  const name = (library as Record<string, unknown>).name;
  return typeof name === 'string' ? name.slice(0, 100) : null;
}

function formatCursor(row: LiveEventRow): string {
  return Buffer.from(JSON.stringify([row.received_at.toISOString(), row.message_id])).toString('base64url');
}

function parseCursor(cursor: string): { receivedAt: string; messageId: string } {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && parsed.length === 2 && typeof parsed[0] === 'string' && typeof parsed[1] === 'string' && !Number.isNaN(Date.parse(parsed[0]))) {
      return { receivedAt: new Date(parsed[0]).toISOString(), messageId: parsed[1] };
    }
  } catch {
    // reported below
  }
  throw invalidRequest('after: not a cursor this feed returned', [{ path: 'after', message: 'not a cursor this feed returned' }]);
}
