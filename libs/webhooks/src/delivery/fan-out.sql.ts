import { sqlStatement } from '@foresight/platform';

/** The organization's enabled webhooks subscribed to the event type. */
export const SUBSCRIBED_WEBHOOKS = sqlStatement<{ id: string }, [organizationId: string, eventType: string]>(
  'webhooks.subscribed-webhooks',
  `SELECT id FROM webhooks WHERE organization_id = $1 AND enabled AND $2 = ANY(events)`,
);
