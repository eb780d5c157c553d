import { sqlStatement } from '@foresight/platform';
import type { StoredUserEventRow } from '../users/user-events.sql';

/** The same columns export reads. */
const LIVE_COLUMNS = 'message_id, event, user_id, anonymous_id, session_id, occurred_at, received_at, properties, context, encryption_key_id';

/** The latest $3 events received at or before $2, newest first. */
export const LATEST_LIVE_EVENTS = sqlStatement<StoredUserEventRow, [organizationId: string, settled: string, limit: number]>(
  'events.latest-live-events',
  `SELECT ${LIVE_COLUMNS} FROM events
    WHERE organization_id = $1 AND received_at <= $2 ORDER BY received_at DESC, message_id DESC LIMIT $3`,
);

/** Up to $5 events received at or before $2 and after the cursor ($3, $4), oldest first. */
export const LIVE_EVENTS_AFTER = sqlStatement<StoredUserEventRow, [organizationId: string, settled: string, receivedAt: string, messageId: string, limit: number]>(
  'events.live-events-after',
  `SELECT ${LIVE_COLUMNS} FROM events
    WHERE organization_id = $1 AND received_at <= $2 AND (received_at, message_id) > ($3::timestamptz, $4::text)
    ORDER BY received_at, message_id LIMIT $5`,
);
