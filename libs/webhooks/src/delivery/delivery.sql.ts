import { sqlStatement } from '@foresight/platform';
import type { DeliveryStatus } from '../webhook-delivery.entity';

/**
 * Starts the failing period on the first failure after a success; once it is older than $2 ms the
 * webhook is disabled, with $3 as the reason. One UPDATE, so concurrent attempts agree.
 */
export const NOTE_WEBHOOK_FAILURE = sqlStatement<{ enabled: boolean }, [webhookId: string, organizationId: string, disableAfterMs: number, disabledReason: string]>(
  'webhooks.note-failure',
  `UPDATE webhooks SET
     failing_since = coalesce(failing_since, now()),
     enabled = enabled AND coalesce(failing_since >= now() - $3::double precision * interval '1 millisecond', true),
     disabled_reason = CASE WHEN failing_since < now() - $3::double precision * interval '1 millisecond' THEN coalesce(disabled_reason, $4) ELSE disabled_reason END
   WHERE id = $1 AND organization_id = $2
   RETURNING enabled`,
);

/** One attempt's outcome: $6 the delivery's status after it, $7 when the next attempt runs; delivered now when it succeeded. */
export const RECORD_ATTEMPT = sqlStatement<
  never,
  [
    deliveryId: string,
    organizationId: string,
    responseCode: number | null,
    error: string | null,
    latencyMs: number,
    status: DeliveryStatus,
    nextAttemptAt: string | null,
  ]
>(
  'webhooks.record-attempt',
  `UPDATE webhook_deliveries
      SET attempts = attempts + 1, last_response_code = $3, last_error = $4, last_latency_ms = $5, status = $6, next_attempt_at = $7,
          delivered_at = CASE WHEN $6 = 'succeeded' THEN now() ELSE delivered_at END, updated_at = now()
    WHERE id = $1 AND organization_id = $2`,
);

/**
 * A 2xx's outcome in one statement: the webhook healthy again and the delivery succeeded together, so
 * whoever sees the success sees the webhook no longer failing, and nothing is left half-recorded.
 */
export const RECORD_SUCCESS = sqlStatement<never, [deliveryId: string, organizationId: string, webhookId: string, responseCode: number, latencyMs: number]>(
  'webhooks.record-success',
  `WITH healthy AS (UPDATE webhooks SET failing_since = NULL WHERE id = $3 AND organization_id = $2 AND failing_since IS NOT NULL)
   UPDATE webhook_deliveries
      SET attempts = attempts + 1, last_response_code = $4, last_error = NULL, last_latency_ms = $5, status = 'succeeded', next_attempt_at = NULL,
          delivered_at = now(), updated_at = now()
    WHERE id = $1 AND organization_id = $2`,
);

/**
 * Every organization's deliveries still pending $1 seconds past their due time, oldest first, at
 * most $2: those whose job Redis may have lost (DeliveryJobsService.resumeStranded).
 */
export const STRANDED_DELIVERIES = sqlStatement<{ id: string; webhook_id: string; organization_id: string; attempts: number }, [overdueSeconds: number, limit: number]>(
  'webhooks.stranded-deliveries',
  `SELECT id, webhook_id, organization_id, attempts FROM webhook_deliveries
    WHERE status = 'pending' AND next_attempt_at < now() - make_interval(secs => $1)
    ORDER BY next_attempt_at LIMIT $2`,
);
