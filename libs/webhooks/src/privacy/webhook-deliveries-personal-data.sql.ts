import { sqlStatement } from '@foresight/platform';

type User = [organizationId: string, userId: string];

/** Audience batches (audience.entered / audience.left) list up to 1,000 users in `data.userIds`, with no user_id of their own. */
const NAMES_USER_IN_BATCH = `event_type IN ('audience.entered', 'audience.left') AND jsonb_exists(payload->'data'->'userIds', $2)`;

export const USER_BATCH_DELIVERIES = sqlStatement<{ id: string; webhook_id: string; payload: unknown; status: string; created_at: Date; delivered_at: Date | null }, User>(
  'webhooks.user-batch-deliveries',
  `SELECT id, webhook_id, payload, status, created_at, delivered_at FROM webhook_deliveries
    WHERE organization_id = $1 AND ${NAMES_USER_IN_BATCH} ORDER BY created_at`,
);

/** The user leaves the batches that name them; the rest of each batch stays (a queued delivery sends the batch without the user). */
export const REMOVE_USER_FROM_BATCHES = sqlStatement<never, User>(
  'webhooks.remove-user-from-batches',
  `UPDATE webhook_deliveries SET payload = jsonb_set(payload, '{data,userIds}', (payload->'data'->'userIds') - $2::text)
    WHERE organization_id = $1 AND ${NAMES_USER_IN_BATCH}`,
);

/** count(*) is a bigint: pg hands it over as text. */
export const USER_BATCH_DELIVERY_ROWS = sqlStatement<{ n: string }, User>(
  'webhooks.user-batch-delivery-rows',
  `SELECT count(*) AS n FROM webhook_deliveries WHERE organization_id = $1 AND ${NAMES_USER_IN_BATCH}`,
);
