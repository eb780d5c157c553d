import { sqlStatement } from '@foresight/platform';

/** failed | abandoned → pending, due now; no row touched when the delivery is in any other state (a concurrent retry won). */
export const RETRY_DELIVERY = sqlStatement<never, [deliveryId: string, organizationId: string]>(
  'webhooks.retry-delivery',
  `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now(), updated_at = now()
    WHERE id = $1 AND organization_id = $2 AND status IN ('failed', 'abandoned')`,
);

/** Whether an enabled webhook of the organization subscribes to prediction.updated. */
export const PREDICTION_UPDATES_WANTED = sqlStatement<{ wanted: boolean }, [organizationId: string]>(
  'webhooks.prediction-updates-wanted',
  `SELECT EXISTS (SELECT 1 FROM webhooks WHERE organization_id = $1 AND enabled AND 'prediction.updated' = ANY(events)) AS wanted`,
);

/** Every organization with an enabled webhook subscribed to prediction.updated. */
export const PREDICTION_UPDATES_WANTED_BY = sqlStatement<{ organization_id: string }, []>(
  'webhooks.prediction-updates-wanted-by',
  `SELECT DISTINCT organization_id FROM webhooks WHERE enabled AND 'prediction.updated' = ANY(events)`,
);
