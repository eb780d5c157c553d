import { sqlStatement } from '@foresight/platform';
import type { DeliveryStatus } from '../webhook-delivery.entity';

/**
 * Starts the failing period on the first failure after a success; once it is older than $2 ms the
 * webhook is disabled, with $3 as the reason. One UPDATE, so concurrent attempts agree.
 */
export const NOTE_WEBHOOK_FAILURE = sqlStatement<{ enabled: boolean }, [webhookId: string, disableAfterMs: number, disabledReason: string]>(
  'webhooks.note-failure',
  `UPDATE webhooks SET
     failing_since = coalesce(failing_since, now()),
     enabled = enabled AND coalesce(failing_since >= now() - $2::double precision * interval '1 millisecond', true),
     disabled_reason = CASE WHEN failing_since < now() - $2::double precision * interval '1 millisecond' THEN coalesce(disabled_reason, $3) ELSE disabled_reason END
   WHERE id = $1
   RETURNING enabled`,
);

/** One attempt's outcome: $5 the delivery's status after it, $6 when the next attempt runs; delivered now when it succeeded. */
export const RECORD_ATTEMPT = sqlStatement<
  never,
  [deliveryId: string, responseCode: number | null, error: string | null, latencyMs: number, status: DeliveryStatus, nextAttemptAt: string | null]
>(
  'webhooks.record-attempt',
  `UPDATE webhook_deliveries
      SET attempts = attempts + 1, last_response_code = $2, last_error = $3, last_latency_ms = $4, status = $5, next_attempt_at = $6,
          delivered_at = CASE WHEN $5 = 'succeeded' THEN now() ELSE delivered_at END, updated_at = now()
    WHERE id = $1`,
);
