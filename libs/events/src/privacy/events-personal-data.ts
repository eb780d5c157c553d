import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { deleteInBatches, PersonalDataStoreProvider, type PersonalDataStore } from '@foresight/platform';
import { EventPayloadCipher } from '../encryption/event-payload-cipher';
import { userEventsFilter } from '../user-events';

/**
 * What erasure removes: the user's events (USER_EVENTS_FILTER), events under the id used as an
 * anonymous id, and the identity links naming either. $1 organization, $2 user as stored.
 */
const ERASABLE_EVENTS = `
  organization_id = $1
  AND (user_id = $2 OR anonymous_id = $2
       OR (user_id IS NULL AND anonymous_id IN (SELECT anonymous_id FROM identities WHERE organization_id = $1 AND user_id = $2)))`;
const ERASABLE_IDENTITIES = `organization_id = $1 AND (user_id = $2 OR anonymous_id = $2)`;
const ERASABLE_ACTIVITY = `organization_id = $1 AND user_id = $2`;
/** Activity rows of users with no event left, own or linked (after retention). $1 organization. */
const ACTIVITY_WITHOUT_EVENTS = `organization_id = $1 AND NOT EXISTS (SELECT 1 FROM events WHERE ${userEventsFilter('user_activity.user_id')})`;

interface EventExportRow {
  message_id: string;
  event: string;
  user_id: string | null;
  anonymous_id: string | null;
  session_id: string | null;
  occurred_at: Date;
  received_at: Date;
  properties: string | null;
  context: string | null;
  encryption_key_id: string | null;
}

/**
 * Events, identity links and the user's activity row (one store: erasing events needs the links, so
 * all go in one statement). Sessions are derived from events and vanish with them.
 */
@Injectable()
@PersonalDataStoreProvider()
export class EventsPersonalData implements PersonalDataStore {
  readonly name = 'events';
  readonly userIdColumns = [
    { table: 'events', column: 'user_id' },
    { table: 'events', column: 'anonymous_id' },
    { table: 'identities', column: 'user_id' },
    { table: 'identities', column: 'anonymous_id' },
    { table: 'user_activity', column: 'user_id' },
  ];

  constructor(
    private readonly dataSource: DataSource,
    private readonly cipher: EventPayloadCipher,
  ) {}

  /** Properties and context decrypted: the export is the one place they leave the database readable. */
  async export(organizationId: string, userId: string): Promise<unknown[]> {
    const rows: EventExportRow[] = await this.dataSource.query(
      `SELECT message_id, event, user_id, anonymous_id, session_id, occurred_at, received_at, properties, context, encryption_key_id
         FROM events WHERE ${ERASABLE_EVENTS} ORDER BY occurred_at, message_id`,
      [organizationId, userId],
    );
    return rows.map((row) => ({
      messageId: row.message_id,
      event: row.event,
      userId: row.user_id,
      anonymousId: row.anonymous_id,
      sessionId: row.session_id,
      timestamp: row.occurred_at.toISOString(),
      receivedAt: row.received_at.toISOString(),
      properties: this.cipher.open(organizationId, row.message_id, 'properties', row.properties, row.encryption_key_id),
      context: this.cipher.open(organizationId, row.message_id, 'context', row.context, row.encryption_key_id),
    }));
  }

  async erase(organizationId: string, userId: string): Promise<number> {
    // Data-modifying CTEs share one snapshot: the events' links are read before they are deleted.
    // Another user whose event carried this id as its anonymous id, or to whom this id was linked as
    // one, lost events: their revision moves.
    const [{ n }] = await this.dataSource.query<{ n: string }[]>(
      `WITH events_gone AS (DELETE FROM events WHERE ${ERASABLE_EVENTS} RETURNING user_id),
            links_gone AS (DELETE FROM identities WHERE ${ERASABLE_IDENTITIES} RETURNING user_id),
            activity_gone AS (DELETE FROM user_activity WHERE ${ERASABLE_ACTIVITY} RETURNING 1),
            others_changed AS (
              UPDATE user_activity SET revision = revision + 1
               WHERE organization_id = $1 AND user_id <> $2
                 AND user_id IN (SELECT user_id FROM events_gone UNION SELECT user_id FROM links_gone))
       SELECT (SELECT count(*) FROM events_gone) + (SELECT count(*) FROM links_gone) + (SELECT count(*) FROM activity_gone) AS n`,
      [organizationId, userId],
    );
    return Number(n);
  }

  /**
   * Events older than `before`, then the activity rows of users left with no event. Identity links
   * stay (they are no behavior, and erasure removes them).
   */
  async expire(organizationId: string, before: Date): Promise<number> {
    const events = await deleteInBatches(this.dataSource, 'events', 'organization_id = $1 AND occurred_at < $2', [organizationId, before.toISOString()]);
    // Also after a dropped partition, which deleted events without this store.
    return events + (await deleteInBatches(this.dataSource, 'user_activity', ACTIVITY_WITHOUT_EVENTS, [organizationId]));
  }

  async remaining(organizationId: string, userId: string): Promise<number> {
    const [{ n }] = await this.dataSource.query<{ n: string }[]>(
      `SELECT (SELECT count(*) FROM events WHERE ${ERASABLE_EVENTS}) + (SELECT count(*) FROM identities WHERE ${ERASABLE_IDENTITIES})
            + (SELECT count(*) FROM user_activity WHERE ${ERASABLE_ACTIVITY}) AS n`,
      [organizationId, userId],
    );
    return Number(n);
  }
}
