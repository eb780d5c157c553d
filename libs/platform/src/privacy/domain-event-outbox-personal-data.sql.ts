import { sqlStatement } from '../database/sql/sql-statement';
import type { DomainEvent } from '../domain-events/domain-event';

type User = [organizationId: string, userId: string];

/** An event about the user (prediction.updated), or an audience batch (audience.entered / audience.left) listing them in `data.userIds`. */
const NAMES_USER = `organization_id = $1 AND (user_id = $2 OR (event->>'type' IN ('audience.entered', 'audience.left') AND jsonb_exists(event->'data'->'userIds', $2)))`;

export const OUTBOX_EVENTS_OF_USER = sqlStatement<{ event: DomainEvent; created_at: Date }, User>(
  'domain-events.outbox-events-of-user',
  `SELECT event, created_at FROM domain_event_outbox WHERE ${NAMES_USER} ORDER BY created_at`,
);

export const ERASE_OUTBOX_EVENTS_OF_USER = sqlStatement<never, User>(
  'domain-events.erase-outbox-events-of-user',
  `DELETE FROM domain_event_outbox WHERE organization_id = $1 AND user_id = $2`,
);

/** The user leaves the audience batches that name them; the rest of each batch is still announced. */
export const REMOVE_USER_FROM_OUTBOX_BATCHES = sqlStatement<never, User>(
  'domain-events.remove-user-from-outbox-batches',
  `UPDATE domain_event_outbox SET event = jsonb_set(event, '{data,userIds}', (event->'data'->'userIds') - $2::text) WHERE ${NAMES_USER} AND user_id IS NULL`,
);

export const EXPIRE_OUTBOX_EVENTS = sqlStatement<never, [organizationId: string, before: Date]>(
  'domain-events.expire-outbox-events',
  `DELETE FROM domain_event_outbox WHERE organization_id = $1 AND created_at < $2`,
);
