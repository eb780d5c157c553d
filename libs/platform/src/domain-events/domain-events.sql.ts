import { sqlStatement } from '../database/sql/sql-statement';
import type { DomainEvent } from './domain-event';

/** Published events, before their jobs are queued ($2: event ids, $3: the user of each event about one user, else null, $4: the events as JSON). A re-publish keeps the row it finds. */
export const STORE_PUBLISHED_EVENTS = sqlStatement<never, [organizationId: string, eventIds: readonly string[], userIds: ReadonlyArray<string | null>, events: readonly string[]]>(
  'domain-events.store-published',
  `INSERT INTO domain_event_outbox (organization_id, event_id, user_id, event)
   SELECT $1, e.event_id, e.user_id, e.event::jsonb FROM unnest($2::text[], $3::text[], $4::text[]) AS e (event_id, user_id, event)
   ON CONFLICT DO NOTHING`,
);

/** The event out of the outbox as it is stored now (erasure may have taken a user out of it), in the fan-out's transaction. */
export const TAKE_OUT_PUBLISHED_EVENT = sqlStatement<{ event: DomainEvent }, [organizationId: string, eventId: string]>(
  'domain-events.take-out-published',
  `DELETE FROM domain_event_outbox WHERE organization_id = $1 AND event_id = $2 RETURNING event`,
);

/** Every organization's events published more than $1 seconds ago and not fanned out yet, oldest first, at most $2: those whose job Redis may have lost. */
export const STRANDED_PUBLISHED_EVENTS = sqlStatement<{ event: DomainEvent }, [olderThanSeconds: number, limit: number]>(
  'domain-events.stranded-published',
  `SELECT event FROM domain_event_outbox WHERE created_at < now() - make_interval(secs => $1) ORDER BY created_at LIMIT $2`,
);
